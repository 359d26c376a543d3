import { Body, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import {
  ApiEndpoint,
  binarySchema,
  fileDownloadHeaders,
  locationHeader,
} from '../../../platform/openapi/api-endpoint.decorator';
import { UUID_LENGTH } from '../../../platform/validation/fields';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { TaskResultsService } from '../task-results.service';
import { TasksService } from '../tasks.service';
import { MAX_EXPORT_BYTES } from '../domain/task';
import { ExportCustomerDataRequest, TaskAcceptedResponse } from './dto/task.dto';
import { taskPath, toTaskAccepted } from './task.view';

/** Exports of a customer's orders, produced as long-running tasks and downloaded as files. */
@ApiTags('Customers')
@VersionedController('customers', 1)
export class CustomerExportsController {
  constructor(private readonly tasks: TasksService) {}

  @Post(':customerId/export')
  @HttpCode(202)
  @Idempotent()
  @ApiEndpoint({
    operationId: 'exportCustomerData',
    replicaLag: true,
    summary: "Start exporting a customer's orders as CSV or JSON",
    description:
      'Returns 202 at once with the task to poll. A customer may export only their own data; an admin any ' +
      "customer's. The file holds every field of each order and each item's product, quantity and unit price.",
    errors: ['ACCESS_DENIED', 'USER_NOT_FOUND'],
    headers: locationHeader('the task', '/api/v1/tasks/{taskId}'),
    type: TaskAcceptedResponse,
    successStatus: 202,
  })
  async start(
    @CurrentCaller() caller: Caller,
    @UuidParam('customerId') customerId: string,
    @Body() body: ExportCustomerDataRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TaskAcceptedResponse> {
    const task = await this.tasks.startExport(caller, customerId, body.format);
    void reply.header('location', taskPath(task.taskId));
    return toTaskAccepted(task);
  }
}

@ApiTags('Exports')
@VersionedController('exports', 1)
export class ExportsController {
  constructor(private readonly results: TaskResultsService) {}

  @Get(':exportId')
  @ApiEndpoint({
    operationId: 'downloadExport',
    summary: 'Download an export file',
    description:
      'The `resultUrl` of a completed CUSTOMER_EXPORT task: CSV (RFC 4180, one row per item) or JSON (an ' +
      'array of orders); visible to the user who started it and to admins.',
    errors: ['EXPORT_NOT_FOUND'],
    headers: fileDownloadHeaders({
      maxBytes: MAX_EXPORT_BYTES,
      // The name is always orders-<customer id>.<csv|json> (customer-export.processor.ts).
      maxDispositionLength: 'attachment; filename="orders-.json"'.length + UUID_LENGTH,
    }),
    schema: binarySchema(MAX_EXPORT_BYTES),
    contentTypes: ['text/csv', 'application/json'],
  })
  async download(
    @CurrentCaller() caller: Caller,
    @UuidParam('exportId') exportId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Readable> {
    const { file, content } = await this.results.export(caller, exportId);
    void reply
      .header('content-type', file.contentType)
      .header('content-length', String(file.size))
      .header('content-disposition', `attachment; filename="${file.fileName}"`)
      .header('cache-control', 'private, no-store');
    return content;
  }
}
