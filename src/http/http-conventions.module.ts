import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ConditionalReadInterceptor } from './conditional-read.interceptor';
import { JsonOutputInterceptor } from './json-output.interceptor';

/**
 * JSON output rules (omitted empty fields, `[]`, timestamps) and conditional reads (`If-None-Match` → 304)
 * for every route. `If-Match` is checked where the current version is known: `assertIfMatch` in
 * conditional-requests.ts; lost races of optimistic writers: `updateVersioned` in versioned-update.ts.
 */
@Module({
  providers: [
    { provide: APP_INTERCEPTOR, useClass: JsonOutputInterceptor },
    { provide: APP_INTERCEPTOR, useClass: ConditionalReadInterceptor },
  ],
})
export class HttpConventionsModule {}
