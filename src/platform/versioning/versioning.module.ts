import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Clock } from './clock';
import { DeprecationGuard } from './deprecation.guard';

/**
 * API versions and the deprecation lifecycle: the `DeprecationGuard` (headers, then 410 after the sunset)
 * and the `Clock` that decides it, shared with the served OpenAPI document. Import it before every other
 * HTTP mechanism: global guards run in module order, and this one must be first.
 */
@Global()
@Module({
  providers: [Clock, { provide: APP_GUARD, useClass: DeprecationGuard }],
  exports: [Clock],
})
export class VersioningModule {}
