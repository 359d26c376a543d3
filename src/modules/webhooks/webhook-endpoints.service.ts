import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.module';
import { Transactions, type Tx } from '../../platform/database/transactions';
import { SecretCipher } from '../../platform/encryption/secret-cipher';
import type { EventType } from '../events/domain/event-types';
import { type ExpectedVersions, satisfies } from '../orders/domain/order';
import { OffsetPage, offsetOf, offsetPage } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import { DestinationPolicy } from './domain/destination-policy';
import { MAX_OLD_SECRET_SECONDS, secretContext, type WebhookEndpoint } from './domain/webhook-endpoint';
import { generateWebhookSecret } from './domain/webhook-secret';
import { EndpointUpdate, WebhookEndpointsRepository } from './persistence/webhook-endpoints.repository';
import { checkWebhookDestination, type HostResolver, WEBHOOK_HOST_RESOLVER } from './webhook-destinations';

/** An endpoint with its new secret: the answer of a create or a rotation, the only ones that show it. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

/** The fields a create takes. */
export interface NewEndpoint {
  url: string;
  eventTypes?: EventType[];
  description?: string;
}

/** A merge patch: absent fields stay, `null` removes an optional one. */
export interface EndpointPatch {
  url?: string;
  eventTypes?: EventType[] | null;
  description?: string | null;
}

/**
 * Webhook endpoints (admin only: the controller's `@Roles`). Secrets are generated here, sealed with the
 * secret cipher for the endpoint's id, and returned in the clear only by create and rotate-secret. A URL is
 * judged by the destination policy at create and patch (400 `URL_NOT_ALLOWED` on `url`), and again by the
 * sender at every attempt. At most `WEBHOOK_ENDPOINT_LIMIT` endpoints exist, disabled ones included (409
 * `WEBHOOK_ENDPOINT_LIMIT_REACHED`): each one costs every event a delivery row and the workers a claim. Changes run with the endpoint's row locked, so `If-Match` is checked against the
 * version that is written over.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly cipher: SecretCipher,
    private readonly policy: DestinationPolicy,
    @Inject(WEBHOOK_HOST_RESOLVER) private readonly resolveHost: HostResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(fields: NewEndpoint): Promise<EndpointWithSecret> {
    await this.checkUrl(fields.url);
    const webhookEndpointId = randomUUID();
    const secret = generateWebhookSecret();
    const limit = this.config.webhooks.endpointLimit;
    const endpoint = await this.transactions.run(async (tx) => {
      const created = await this.endpoints.insertWithin(
        tx,
        limit,
        {
          webhookEndpointId,
          url: fields.url,
          eventTypes: distinct(fields.eventTypes) ?? null,
          description: fields.description ?? null,
        },
        this.cipher.seal(secret, secretContext(webhookEndpointId)),
      );
      if (!created) throw new AppException('WEBHOOK_ENDPOINT_LIMIT_REACHED', { args: { limit } });
      return created;
    });
    return { endpoint, secret };
  }

  async list(paging: { page: number; size: number }): Promise<OffsetPage<WebhookEndpoint>> {
    const { endpoints, total } = await this.endpoints.page({ limit: paging.size, offset: offsetOf(paging) });
    return offsetPage(endpoints, total, paging);
  }

  async get(webhookEndpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.read(webhookEndpointId);
    if (!endpoint) throw notFound(webhookEndpointId);
    return endpoint;
  }

  async patch(
    webhookEndpointId: string,
    patch: EndpointPatch,
    expected: ExpectedVersions,
  ): Promise<WebhookEndpoint> {
    if (patch.url !== undefined) await this.checkUrl(patch.url);
    return this.change(webhookEndpointId, expected, (current) => ({
      ...current,
      url: patch.url ?? current.url,
      eventTypes: patch.eventTypes === undefined ? current.eventTypes : (distinct(patch.eventTypes) ?? null),
      description: patch.description === undefined ? current.description : patch.description,
    }));
  }

  disable(webhookEndpointId: string, expected: ExpectedVersions): Promise<WebhookEndpoint> {
    return this.change(webhookEndpointId, expected, (current) =>
      // Disabling a disabled endpoint keeps the reason the service gave.
      current.status === 'DISABLED' ? current : { ...current, status: 'DISABLED', disabledReason: 'MANUAL' },
    );
  }

  enable(webhookEndpointId: string, expected: ExpectedVersions): Promise<WebhookEndpoint> {
    return this.change(webhookEndpointId, expected, (current) => ({
      ...current,
      status: 'ENABLED',
      disabledReason: null,
    }));
  }

  /**
   * A new secret; the current one keeps signing (a second signature on every delivery) for
   * `oldSecretExpiresInSeconds`, so receivers can switch without losing a delivery.
   */
  rotateSecret(
    webhookEndpointId: string,
    oldSecretExpiresInSeconds: number = MAX_OLD_SECRET_SECONDS,
    expected: ExpectedVersions,
  ): Promise<EndpointWithSecret> {
    return this.transactions.run(async (tx) => {
      await this.lockExpected(tx, webhookEndpointId, expected);
      const context = secretContext(webhookEndpointId);
      const { current } = await this.endpoints.secrets(tx, webhookEndpointId);
      const secret = generateWebhookSecret();
      const endpoint = await this.endpoints.rotateSecret(
        tx,
        webhookEndpointId,
        this.cipher.seal(secret, context),
        current,
        new Date(Date.now() + oldSecretExpiresInSeconds * 1000),
      );
      return { endpoint, secret };
    });
  }

  /** Deletes the endpoint with its deliveries (pending ones are never sent). */
  remove(webhookEndpointId: string, expected: ExpectedVersions): Promise<void> {
    return this.transactions.run(async (tx) => {
      await this.lockExpected(tx, webhookEndpointId, expected);
      await this.endpoints.delete(tx, webhookEndpointId);
    });
  }

  private change(
    webhookEndpointId: string,
    expected: ExpectedVersions,
    next: (current: EndpointUpdate) => EndpointUpdate,
  ): Promise<WebhookEndpoint> {
    return this.transactions.run(async (tx) => {
      const current = await this.lockExpected(tx, webhookEndpointId, expected);
      return this.endpoints.update(
        tx,
        webhookEndpointId,
        next({
          url: current.url,
          eventTypes: current.eventTypes ?? null,
          description: current.description ?? null,
          status: current.status,
          disabledReason: current.disabledReason ?? null,
        }),
      );
    });
  }

  /** The endpoint, locked; 404 when unknown, 409 CONCURRENT_MODIFICATION when If-Match names another version. */
  private async lockExpected(
    tx: Tx,
    webhookEndpointId: string,
    expected: ExpectedVersions,
  ): Promise<WebhookEndpoint> {
    const current = await this.endpoints.lock(tx, webhookEndpointId);
    if (!current) throw notFound(webhookEndpointId);
    if (!satisfies(expected, current.version)) {
      throw new AppException('CONCURRENT_MODIFICATION');
    }
    return current;
  }

  private async checkUrl(url: string): Promise<void> {
    const check = await checkWebhookDestination(url, this.policy, this.resolveHost);
    if (!check.allowed) {
      throw AppException.validation([
        { field: 'url', code: 'URL_NOT_ALLOWED', args: { detail: check.refusal.detail } },
      ]);
    }
  }
}

/** A subscription names each type once, whatever the request repeated. */
function distinct<T>(values: T[] | null | undefined): T[] | null | undefined {
  return values ? [...new Set(values)] : values;
}

function notFound(webhookEndpointId: string): AppException {
  return new AppException('WEBHOOK_ENDPOINT_NOT_FOUND', { args: { webhookEndpointId } });
}
