import {
  Body,
  Delete,
  Get,
  HttpCode,
  Injectable,
  Module,
  Param,
  Patch,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../../../src/platform/auth/decorators';
import { write } from '../../../src/platform/database/sql-statement';
import { Transactions } from '../../../src/platform/database/transactions';
import { Idempotent } from '../../../src/platform/idempotency/idempotent.decorator';
import { AppException } from '../../../src/platform/problem/app-exception';
import { VersionedController } from '../../../src/platform/versioning/api-version';

export const IDEMPOTENCY_PROBE_PATH = '/api/v1/idempotency-probe';

/** Every execution of a probe handler leaves one row here: the effects a key must not repeat. */
export const PROBE_EFFECTS_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS idempotency_probe_effects (
    effect_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    kind text NOT NULL,
    label text NOT NULL,
    caller text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`;

class ProbeEffectBody {
  @IsString()
  @MaxLength(50)
  label: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  quantity?: number;
}

/**
 * Lets a test hold a handler while it runs: `close()`, fire a request, `await entered()`, then the key is
 * IN_PROGRESS until `open()`.
 */
@Injectable()
export class ProbeGate {
  private release?: () => void;
  private gate: Promise<void> = Promise.resolve();
  private notifyEntered?: () => void;
  private enteredSignal: Promise<void> = Promise.resolve();

  close(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
    this.enteredSignal = new Promise((resolve) => (this.notifyEntered = resolve));
  }

  open(): void {
    this.release?.();
  }

  entered(): Promise<void> {
    return this.enteredSignal;
  }

  async pass(): Promise<void> {
    this.notifyEntered?.();
    await this.gate;
  }
}

/** Labels whose first execution fails with an unexpected error (a 500), the next one succeeding. */
@Injectable()
export class ProbeFailures {
  readonly failOnce = new Set<string>();
}

/** Test-only routes under /api/v1/idempotency-probe that exercise `@Idempotent()`. */
@VersionedController('idempotency-probe', 1)
class IdempotencyProbeController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly gate: ProbeGate,
    private readonly failures: ProbeFailures,
    private readonly transactions: Transactions,
  ) {}

  /** Creates an effect: 201 with Location and ETag, a body with a Date, as a create endpoint does. */
  @Post('effects')
  @HttpCode(201)
  @Idempotent({ required: true })
  async create(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown>> {
    const effect = await this.effect('create', body.label, request);
    void reply
      .header('location', `${IDEMPOTENCY_PROBE_PATH}/effects/${effect.effectId}`)
      .header('etag', `"${effect.effectId}.v1"`);
    return { ...effect, quantity: body.quantity, note: null };
  }

  @Patch('effects/:effectId')
  @Idempotent()
  async patch(
    @Param('effectId') effectId: string,
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    await this.effect('patch', body.label, request);
    return { effectId, label: body.label };
  }

  /** Waits at the gate while the test looks at the key. */
  @Post('gated')
  @HttpCode(201)
  @Idempotent()
  async gated(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    await this.gate.pass();
    return this.effect('gated', body.label, request);
  }

  @Post('flaky')
  @HttpCode(201)
  @Idempotent()
  async flaky(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    if (this.failures.failOnce.delete(body.label)) throw new Error('probe failure');
    return this.effect('flaky', body.label, request);
  }

  /**
   * Fails unexpectedly (a 500) after its effect the first time for a label in `failOnce`: the effect is
   * undone with the request's unit of work, so the retry's effect is the only one.
   */
  @Post('fails-after-effect')
  @HttpCode(201)
  @Idempotent()
  async failsAfterEffect(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    const effect = await this.effect('fails-after-effect', body.label, request);
    if (this.failures.failOnce.delete(body.label)) throw new Error('probe failure');
    return effect;
  }

  /** Ends in a domain 404 after its effect: a 4xx outcome that is recorded and replayed. */
  @Post('refused')
  @HttpCode(201)
  @Idempotent()
  async refused(@Body() body: ProbeEffectBody, @Req() request: FastifyRequest): Promise<never> {
    await this.effect('refused', body.label, request);
    throw new AppException('ORDER_NOT_FOUND', { args: { orderId: body.label } });
  }

  @Post('public')
  @HttpCode(201)
  @Public()
  @Idempotent()
  async open(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    return this.effect('public', body.label, request);
  }

  /** Without `@Idempotent()` the header means nothing. */
  @Post('plain')
  @HttpCode(201)
  async plain(
    @Body() body: ProbeEffectBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    return this.effect('plain', body.label, request);
  }

  /** Marked, but DELETE is no method the header applies to. */
  @Delete('effects/:effectId')
  @HttpCode(204)
  @Idempotent()
  async remove(@Param('effectId') effectId: string): Promise<void> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM idempotency_probe_effects WHERE effect_id = $1',
      [effectId],
    )) as [unknown, number];
    if (deleted === 0) throw new AppException('RESOURCE_NOT_FOUND');
  }

  @Get('effects/:label/count')
  async count(@Param('label') label: string): Promise<{ count: number }> {
    const [row] = (await this.dataSource.query(
      'SELECT count(*)::int AS count FROM idempotency_probe_effects WHERE label = $1',
      [label],
    )) as Array<{ count: number }>;
    return { count: row.count };
  }

  private async effect(
    kind: string,
    label: string,
    request: FastifyRequest,
  ): Promise<{ effectId: string; label: string; createdAt: Date }> {
    const caller = request.caller?.userId ?? `anonymous:${request.ip}`;
    // In the request's transaction, as every service's write: it commits with the key's outcome.
    const [row] = await this.transactions.run((tx) =>
      tx.rows<{ effectId: string; label: string; createdAt: Date }>(
        write(`INSERT INTO idempotency_probe_effects (kind, label, caller) VALUES ($1, $2, $3)
         RETURNING effect_id AS "effectId", label, created_at AS "createdAt"`),
        [kind, label, caller],
      ),
    );
    return row;
  }
}

@Module({ controllers: [IdempotencyProbeController], providers: [ProbeGate, ProbeFailures] })
export class IdempotencyProbeModule {}
