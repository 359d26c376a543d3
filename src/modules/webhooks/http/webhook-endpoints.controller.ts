import { Body, Delete, Get, HttpCode, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Roles } from '../../../platform/auth/decorators';
import { ifMatchVersions } from '../../../platform/http/conditional-requests';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { ApiEndpoint, etagHeader, locationHeader } from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPage, OffsetPageQuery } from '../../../platform/paging/offset-page';
import { OptionalBody } from '../../../platform/validation/body-rules';
import { Consumes, MERGE_PATCH } from '../../../platform/validation/content-type.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { WebhookEndpointsService } from '../webhook-endpoints.service';
import {
  CreateWebhookEndpointRequest,
  PatchWebhookEndpointRequest,
  RotateWebhookSecretRequest,
  WebhookEndpointPageResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './dto/webhook-endpoint.dto';
import { sendEndpoint, toEndpointResponse } from './webhook.view';

const PATH = '/api/v1/webhook-endpoints';

/**
 * Webhook endpoints (admin only): where events are pushed, which types, and their signing secrets (shown
 * by create and rotate-secret only; their stored answers are kept sealed). docs/events.md.
 */
@ApiTags('WebhookEndpoints')
@Roles('ADMIN')
@VersionedController('webhook-endpoints', 1)
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @ApiEndpoint({
    operationId: 'getWebhookEndpoints',
    replicaLag: true,
    summary: 'List webhook endpoints, newest first',
    type: WebhookEndpointPageResponse,
  })
  async list(@Query() query: OffsetPageQuery): Promise<OffsetPage<WebhookEndpointResponse>> {
    const page = await this.endpoints.list(query);
    return { ...page, content: page.content.map(toEndpointResponse) };
  }

  @Post()
  @HttpCode(201)
  @Idempotent({ sealed: true })
  @ApiEndpoint({
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'The answer carries the signing `secret`, shown this once. The URL is checked against the ' +
      'server-side request forgery rules (400 `URL_NOT_ALLOWED` on `url`). At most `WEBHOOK_ENDPOINT_LIMIT` ' +
      'endpoints exist, disabled ones included: a create beyond it is 409 `WEBHOOK_ENDPOINT_LIMIT_REACHED`.',
    errors: ['WEBHOOK_ENDPOINT_LIMIT_REACHED'],
    headers: {
      ...locationHeader('the created endpoint', `${PATH}/{webhookEndpointId}`),
      ...etagHeader(),
    },
    type: WebhookEndpointWithSecretResponse,
    successStatus: 201,
  })
  async create(
    @Body() body: CreateWebhookEndpointRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretResponse> {
    const { endpoint, secret } = await this.endpoints.create(body);
    void reply.header('location', `${PATH}/${endpoint.webhookEndpointId}`);
    return { ...sendEndpoint(reply, endpoint), secret };
  }

  @Get(':webhookEndpointId')
  @ApiEndpoint({
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    headers: etagHeader(),
    type: WebhookEndpointResponse,
  })
  async get(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointResponse> {
    return sendEndpoint(reply, await this.endpoints.get(webhookEndpointId));
  }

  @Patch(':webhookEndpointId')
  @Consumes(MERGE_PATCH)
  @ApiEndpoint({
    operationId: 'patchWebhookEndpoint',
    conditional: 'write',
    summary: 'Change the URL, event types or description with a merge patch',
    description: 'JSON Merge Patch (RFC 7396); null removes `eventTypes` (every type) or `description`.',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    type: WebhookEndpointResponse,
  })
  async patch(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Body() body: PatchWebhookEndpointRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointResponse> {
    const expected = ifMatchVersions(request, webhookEndpointId);
    return sendEndpoint(reply, await this.endpoints.patch(webhookEndpointId, body, expected));
  }

  @Delete(':webhookEndpointId')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteWebhookEndpoint',
    conditional: 'write',
    summary: 'Delete a webhook endpoint',
    description: 'Its deliveries go with it; pending ones are never sent.',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    successStatus: 204,
  })
  async remove(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.endpoints.remove(webhookEndpointId, ifMatchVersions(request, webhookEndpointId));
  }

  @Post(':webhookEndpointId/disable')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'disableWebhookEndpoint',
    conditional: 'write',
    summary: 'Disable a webhook endpoint',
    description:
      'It gets no deliveries until enabled; events meanwhile are never sent to it (the feed has them).',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    type: WebhookEndpointResponse,
  })
  async disable(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointResponse> {
    const expected = ifMatchVersions(request, webhookEndpointId);
    return sendEndpoint(reply, await this.endpoints.disable(webhookEndpointId, expected));
  }

  @Post(':webhookEndpointId/enable')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'enableWebhookEndpoint',
    conditional: 'write',
    summary: 'Enable a webhook endpoint',
    description: 'Its failure count starts again; its pending deliveries go out again.',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    type: WebhookEndpointResponse,
  })
  async enable(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointResponse> {
    const expected = ifMatchVersions(request, webhookEndpointId);
    return sendEndpoint(reply, await this.endpoints.enable(webhookEndpointId, expected));
  }

  @Post(':webhookEndpointId/rotate-secret')
  @HttpCode(200)
  @Idempotent({ sealed: true })
  @OptionalBody()
  @ApiBody({ type: RotateWebhookSecretRequest, required: false })
  @ApiEndpoint({
    operationId: 'rotateWebhookSecret',
    conditional: 'write',
    summary: 'Replace the signing secret of a webhook endpoint',
    description:
      'The answer carries the new `secret`, shown this once. Until `oldSecretExpiresInSeconds` have passed ' +
      'every delivery carries a signature with each secret, so receivers switch without losing one.',
    errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
    type: WebhookEndpointWithSecretResponse,
  })
  async rotateSecret(
    @UuidParam('webhookEndpointId') webhookEndpointId: string,
    @Body() body: RotateWebhookSecretRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookEndpointWithSecretResponse> {
    const expected = ifMatchVersions(request, webhookEndpointId);
    const { endpoint, secret } = await this.endpoints.rotateSecret(
      webhookEndpointId,
      body?.oldSecretExpiresInSeconds,
      expected,
    );
    return { ...sendEndpoint(reply, endpoint), secret };
  }
}
