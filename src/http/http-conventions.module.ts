import { Module } from '@nestjs/common';

/** JSON output rules (omitted nulls, timestamps) and conditional requests. */
@Module({})
export class HttpConventionsModule {}
