import { Delete, Get, HttpCode, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { IdempotencyKeyRefused } from '../../../platform/idempotency/idempotency-key-refused.decorator';
import {
  ApiEndpoint,
  ApiMultipartFile,
  locationHeader,
} from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPage, OffsetPageQuery } from '../../../platform/paging/offset-page';
import { MultipartBody } from '../../../platform/validation/multipart-body';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { ATTACHMENT_UPLOADS } from '../domain/attachment';
import { FileUploadsService } from '../file-uploads.service';
import { OrderAttachmentsService } from '../order-attachments.service';
import { fileDownload, fileDownloadDocs, toAttachmentResponse } from './attachment.view';
import { ATTACHMENT_DESCRIPTION, AttachmentPageResponse, AttachmentResponse } from './dto/attachment.dto';
import { ATTACHMENT_FORM, FILE_PART, readUpload } from './upload-forms';

/** Codes every operation on an order's attachments can answer. */
const ORDER_ERRORS = ['ORDER_NOT_FOUND', 'ACCESS_DENIED'] as const;

/** Files attached to an order: `/orders/{orderId}/attachments[/{attachmentId}]` (tag of the parent, Orders). */
@ApiTags('Orders')
@VersionedController('orders', 1)
export class OrderAttachmentsController {
  constructor(
    private readonly attachments: OrderAttachmentsService,
    private readonly uploads: FileUploadsService,
  ) {}

  @Post(':orderId/attachments')
  @HttpCode(201)
  @MultipartBody()
  @IdempotencyKeyRefused()
  @ApiMultipartFile({
    field: FILE_PART,
    maxBytes: ATTACHMENT_UPLOADS.maxBytes,
    allowedTypes: ATTACHMENT_UPLOADS.allowedTypes,
    extraFields: { description: { kind: ATTACHMENT_DESCRIPTION, description: 'What the file is.' } },
  })
  @ApiEndpoint({
    operationId: 'uploadOrderAttachment',
    summary: 'Attach a file to an order',
    description:
      'The order’s customer or an admin, in any order state. The type is decided by the file’s first bytes ' +
      '(and must match the part’s declared type unless that is application/octet-stream); an upload over ' +
      'the limit is refused as soon as it passes it, with nothing stored. `Idempotency-Key` is refused ' +
      '(400): a streamed upload has no body to fingerprint before it is stored.',
    errors: [...ORDER_ERRORS, 'FILE_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE', 'UNSUPPORTED_MEDIA_TYPE'],
    headers: locationHeader('the attachment', '/api/v1/orders/{orderId}/attachments/{attachmentId}'),
    type: AttachmentResponse,
    successStatus: 201,
  })
  async upload(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AttachmentResponse> {
    // Before a byte of the body is read: a refused upload costs the client no transfer.
    await this.attachments.assertAttachable(caller, orderId);
    const { file, fields } = await readUpload(request, ATTACHMENT_FORM, ATTACHMENT_UPLOADS, this.uploads);
    // An empty description (a form's untouched text box) is no description.
    const attachment = await this.attachments.attach(caller, orderId, file, fields.description || undefined);
    void reply.header('location', `/api/v1/orders/${orderId}/attachments/${attachment.attachmentId}`);
    return toAttachmentResponse(attachment);
  }

  @Get(':orderId/attachments')
  @ApiEndpoint({
    operationId: 'getOrderAttachments',
    replicaLag: true,
    summary: 'List the attachments of an order',
    description: 'In upload order, oldest first.',
    errors: [...ORDER_ERRORS],
    type: AttachmentPageResponse,
  })
  async list(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @Query() query: OffsetPageQuery,
  ): Promise<OffsetPage<AttachmentResponse>> {
    const page = await this.attachments.list(caller, orderId, query);
    return { ...page, content: page.content.map(toAttachmentResponse) };
  }

  @Get(':orderId/attachments/:attachmentId')
  @ApiEndpoint({
    operationId: 'downloadOrderAttachment',
    summary: 'Download an attachment of an order',
    errors: [...ORDER_ERRORS, 'ATTACHMENT_NOT_FOUND'],
    ...fileDownloadDocs(ATTACHMENT_UPLOADS),
  })
  async download(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('attachmentId') attachmentId: string,
  ): Promise<StreamableFile> {
    return fileDownload(await this.attachments.open(caller, orderId, attachmentId));
  }

  @Delete(':orderId/attachments/:attachmentId')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteOrderAttachment',
    summary: 'Delete an attachment of an order',
    description: 'Its bytes are deleted with it.',
    errors: [...ORDER_ERRORS, 'ATTACHMENT_NOT_FOUND'],
    successStatus: 204,
  })
  async remove(
    @CurrentCaller() caller: Caller,
    @UuidParam('orderId') orderId: string,
    @UuidParam('attachmentId') attachmentId: string,
  ): Promise<void> {
    await this.attachments.remove(caller, orderId, attachmentId);
  }
}
