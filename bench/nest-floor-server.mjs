// The Nest floor of `npm run bench:orders` and `bench:lists` (BENCH_NEST_FLOOR=controller|guarded): the bare
// baseline's read and customer page (one statement each, bench/baseline-sql.mjs) behind NestJS on the Fastify
// adapter, as the service uses it, with nothing of the service's own. `controller`: one decorated controller; `guarded`: the same
// with the shape of the service's request pipeline and nothing in it — five global guards that only let the
// request through (the service has deprecation, rate limit, bearer auth, request validation and
// just-in-time user) and a global pipe. What this costs over the bare baseline is the framework's share
// of the gap, which no change to the service's own code can remove.
import 'reflect-metadata';
import { Controller, Get, Injectable, Module, Param, Query } from '@nestjs/common';
import { APP_GUARD, APP_PIPE, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import pg from 'pg';
import { CUSTOMER_PAGE, READ_ORDER } from './baseline-sql.mjs';

const level = process.env.NEST_FLOOR ?? 'controller';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

class OrdersController {
  async read(orderId) {
    const { rows } = await pool.query(READ_ORDER, [orderId]);
    return rows[0]?.body;
  }

  /** The baseline's customer page (bench:lists), the same query parameters. */
  async list(query) {
    const page = Number(query.page ?? 1);
    const size = Number(query.size ?? 20);
    const { rows } = await pool.query(CUSTOMER_PAGE, [query.customerId, size, (page - 1) * size, page]);
    return rows[0].body;
  }
}
// The decorators, applied as TypeScript would (this file is plain JavaScript).
Reflect.defineMetadata('design:paramtypes', [Object], OrdersController.prototype, 'list');
Query()(OrdersController.prototype, 'list', 0);
Get()(
  OrdersController.prototype,
  'list',
  Object.getOwnPropertyDescriptor(OrdersController.prototype, 'list'),
);
Reflect.defineMetadata('design:paramtypes', [String], OrdersController.prototype, 'read');
Param('orderId')(OrdersController.prototype, 'read', 0);
Get(':orderId')(
  OrdersController.prototype,
  'read',
  Object.getOwnPropertyDescriptor(OrdersController.prototype, 'read'),
);
Controller('api/v1/orders')(OrdersController);

/** Lets every request through, asynchronously like the service's guards (they await). */
class PassGuard {
  async canActivate(context) {
    return context.switchToHttp().getRequest().headers !== undefined;
  }
}
Injectable()(PassGuard);
/** Returns the value, as the service's pipe does for a parameter without a DTO. */
class PassPipe {
  transform(value) {
    return value;
  }
}
Injectable()(PassPipe);

class FloorModule {}
const guards =
  level === 'guarded' ? Array.from({ length: 5 }, () => ({ provide: APP_GUARD, useClass: PassGuard })) : [];
const pipes = level === 'guarded' ? [{ provide: APP_PIPE, useClass: PassPipe }] : [];
Module({ controllers: [OrdersController], providers: [...guards, ...pipes] })(FloorModule);

const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
await app.listen(Number(process.env.PORT ?? 3104), '127.0.0.1');
