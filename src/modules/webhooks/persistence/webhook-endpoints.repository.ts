import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, replicaRead, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { EventType } from '../../events/domain/event-types';
import type {
  DisabledReason,
  SealedSecrets,
  WebhookEndpoint,
  WebhookEndpointStatus,
} from '../domain/webhook-endpoint';

/** Every statement on `webhook_endpoints`. Writes take the service's transaction. */

interface EndpointRow {
  webhook_endpoint_id: string;
  url: string;
  event_types: EventType[] | null;
  description: string | null;
  status: WebhookEndpointStatus;
  disabled_reason: DisabledReason | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

interface SecretsRow {
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

const COLUMNS =
  'webhook_endpoint_id, url, event_types, description, status, disabled_reason, version, created_at, updated_at';

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  webhookEndpointId: row.webhook_endpoint_id,
  url: row.url,
  ...(row.event_types ? { eventTypes: row.event_types } : {}),
  ...(row.description !== null ? { description: row.description } : {}),
  status: row.status,
  ...(row.disabled_reason ? { disabledReason: row.disabled_reason } : {}),
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The sealed secrets of a row (`webhook-deliveries.repository.ts` reads the same columns). */
export function sealedSecretsOf(row: SecretsRow): SealedSecrets {
  return {
    current: row.secret_sealed,
    ...(row.previous_secret_sealed !== null && row.previous_secret_expires_at !== null
      ? { previous: { sealed: row.previous_secret_sealed, expiresAt: row.previous_secret_expires_at } }
      : {}),
  };
}

/** Creates serialise on this lock, so each counts the endpoints the ones before it committed. */
const LOCK_CREATES = write("SELECT pg_advisory_xact_lock(hashtextextended('webhook-endpoints:create', 0))");
/** Inserts the endpoint unless `$6` endpoints exist already (none returned then). */
const INSERT = write(
  `INSERT INTO webhook_endpoints (webhook_endpoint_id, url, event_types, description, secret_sealed)
   SELECT $1, $2, $3, $4, $5 WHERE (SELECT count(*) FROM webhook_endpoints) < $6
   RETURNING ${COLUMNS}`,
);
const READ = read(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE webhook_endpoint_id = $1`);
const LOCK = write(
  `SELECT ${COLUMNS} FROM webhook_endpoints WHERE webhook_endpoint_id = $1 FOR NO KEY UPDATE`,
);
const PAGE = replicaRead(
  `SELECT ${COLUMNS} FROM webhook_endpoints
   ORDER BY created_at DESC, webhook_endpoint_id DESC LIMIT $1 OFFSET $2`,
);
const COUNT = replicaRead('SELECT count(*) AS total FROM webhook_endpoints');
const UPDATE = write(
  `UPDATE webhook_endpoints
      SET url = $2, event_types = $3, description = $4,
          consecutive_failures = CASE WHEN status = 'DISABLED' AND $5 = 'ENABLED' THEN 0
                                      ELSE consecutive_failures END,
          last_attempt_succeeded = CASE WHEN url <> $2 OR (status = 'DISABLED' AND $5 = 'ENABLED') THEN NULL
                                        ELSE last_attempt_succeeded END,
          status = $5, disabled_reason = $6,
          version = version + 1, updated_at = clock_timestamp()
    WHERE webhook_endpoint_id = $1
   RETURNING ${COLUMNS}`,
);
const ROTATE_SECRET = write(
  `UPDATE webhook_endpoints
      SET secret_sealed = $2, previous_secret_sealed = $3, previous_secret_expires_at = $4,
          version = version + 1, updated_at = clock_timestamp()
    WHERE webhook_endpoint_id = $1
   RETURNING ${COLUMNS}`,
);
const SECRETS = read(
  `SELECT secret_sealed, previous_secret_sealed, previous_secret_expires_at
     FROM webhook_endpoints WHERE webhook_endpoint_id = $1`,
);
const DELETE = write('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = $1');

/** What an update writes: the API's fields (already merged), and the status with its reason. */
export interface EndpointUpdate {
  url: string;
  eventTypes: EventType[] | null;
  description: string | null;
  status: WebhookEndpointStatus;
  disabledReason: DisabledReason | null;
}

@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Inserts the endpoint while fewer than `limit` exist, disabled ones included (undefined when `limit`
   * exist). Creates take a lock for the rest of `tx` first, so concurrent ones cannot both take the last
   * place; other changes of endpoints are not held up.
   */
  async insertWithin(
    tx: Tx,
    limit: number,
    endpoint: {
      webhookEndpointId: string;
      url: string;
      eventTypes: EventType[] | null;
      description: string | null;
    },
    secretSealed: string,
  ): Promise<WebhookEndpoint | undefined> {
    await tx.rows(LOCK_CREATES);
    const rows = await tx.rows<EndpointRow>(INSERT, [
      endpoint.webhookEndpointId,
      endpoint.url,
      endpoint.eventTypes,
      endpoint.description,
      secretSealed,
      limit,
    ]);
    return rows[0] ? toEndpoint(rows[0]) : undefined;
  }

  async read(webhookEndpointId: string): Promise<WebhookEndpoint | undefined> {
    const [row] = await this.sql.rows<EndpointRow>(READ, [webhookEndpointId]);
    return row ? toEndpoint(row) : undefined;
  }

  /** The endpoint with its row locked until the transaction ends (a change checks If-Match, then writes). */
  async lock(tx: Tx, webhookEndpointId: string): Promise<WebhookEndpoint | undefined> {
    const rows = await tx.rows<EndpointRow>(LOCK, [webhookEndpointId]);
    return rows[0] ? toEndpoint(rows[0]) : undefined;
  }

  /** A page of endpoints, newest first, with the total. */
  async page(window: {
    limit: number;
    offset: number;
  }): Promise<{ endpoints: WebhookEndpoint[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.sql.rows<EndpointRow>(PAGE, [window.limit, window.offset]),
      this.sql.rows<{ total: string }>(COUNT),
    ]);
    return { endpoints: rows.map(toEndpoint), total: Number(total) };
  }

  /**
   * Writes the fields and status; a new version. Enabling resets the failure count, so an endpoint enabled
   * again gets ten more chances; enabling it or changing its URL makes it unproven again (one delivery in
   * flight until an attempt succeeds).
   */
  async update(tx: Tx, webhookEndpointId: string, update: EndpointUpdate): Promise<WebhookEndpoint> {
    const rows = await tx.rows<EndpointRow>(UPDATE, [
      webhookEndpointId,
      update.url,
      update.eventTypes,
      update.description,
      update.status,
      update.disabledReason,
    ]);
    return toEndpoint(rows[0]);
  }

  /** A new current secret; the current one becomes the previous one until `previousExpiresAt`. */
  async rotateSecret(
    tx: Tx,
    webhookEndpointId: string,
    secretSealed: string,
    previousSealed: string,
    previousExpiresAt: Date,
  ): Promise<WebhookEndpoint> {
    const rows = await tx.rows<EndpointRow>(ROTATE_SECRET, [
      webhookEndpointId,
      secretSealed,
      previousSealed,
      previousExpiresAt,
    ]);
    return toEndpoint(rows[0]);
  }

  /** The endpoint's sealed secrets, read in `tx` (which has locked its row). */
  async secrets(tx: Tx, webhookEndpointId: string): Promise<SealedSecrets> {
    const rows = await tx.rows<SecretsRow>(SECRETS, [webhookEndpointId]);
    return sealedSecretsOf(rows[0]);
  }

  /** Deletes the endpoint; its deliveries go with it (the foreign key cascades). */
  async delete(tx: Tx, webhookEndpointId: string): Promise<void> {
    await tx.rowCount(DELETE, [webhookEndpointId]);
  }
}
