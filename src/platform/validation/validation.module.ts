import { Module } from '@nestjs/common';
import { APP_GUARD, APP_PIPE } from '@nestjs/core';
import { RequestValidationGuard } from './request-validation.guard';
import { ValidationPipe } from './validation.pipe';

/**
 * Request validation: one guard checks headers, path, query and body together (VALIDATION_ERROR with every
 * violation), the global pipe hands the checked DTOs to handlers. Registered after authentication (module
 * order is guard order), so 401 and 403 come first.
 */
@Module({
  providers: [
    { provide: APP_GUARD, useClass: RequestValidationGuard },
    { provide: APP_PIPE, useClass: ValidationPipe },
  ],
})
export class ValidationModule {}
