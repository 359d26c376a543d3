import { Module } from '@nestjs/common';

/** Global validation pipe producing VALIDATION_ERROR violations. */
@Module({})
export class ValidationModule {}
