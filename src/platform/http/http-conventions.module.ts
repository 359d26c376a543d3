import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { registerConditionalRead } from './conditional-read.hook';
import { registerJsonOutput } from './json-output.hook';
import { RequestTransaction } from './request-transaction';

/**
 * JSON output rules (omitted empty fields, `[]`, timestamps) and conditional reads (`If-None-Match` → 304)
 * for every route. `If-Match` is checked where the current version is known: `assertIfMatch` in
 * conditional-requests.ts; lost races of optimistic writers: `updateVersioned` in versioned-update.ts. Every
 * request that may change something runs in one transaction, ended in one place (request-transaction.ts).
 */
@Module({
  providers: [RequestTransaction],
  exports: [RequestTransaction],
})
export class HttpConventionsModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // Absent in an application context without HTTP (the worker).
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    registerJsonOutput(fastify);
    registerConditionalRead(fastify);
  }
}
