import { Module } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { ValidationPipe } from './validation.pipe';

/** Global validation pipe producing VALIDATION_ERROR violations. */
@Module({
  providers: [{ provide: APP_PIPE, useClass: ValidationPipe }],
})
export class ValidationModule {}
