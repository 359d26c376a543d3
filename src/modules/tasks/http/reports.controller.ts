import { Body, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller, Roles } from '../../../platform/auth/decorators';
import { Idempotent } from '../../../platform/idempotency/idempotent.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { ApiEndpoint, locationHeader } from '../../../platform/openapi/api-endpoint.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { TaskResultsService } from '../task-results.service';
import { TasksService } from '../tasks.service';
import { ReportResponse } from './dto/report.dto';
import { GenerateReportRequest, TaskAcceptedResponse } from './dto/task.dto';
import { taskPath, toReportResponse, toTaskAccepted } from './task.view';

/** Sales reports, generated as long-running tasks. */
@ApiTags('Reports')
@VersionedController('reports', 1)
export class ReportsController {
  constructor(
    private readonly tasks: TasksService,
    private readonly results: TaskResultsService,
  ) {}

  @Post('generate')
  @HttpCode(202)
  @Roles('ADMIN')
  @Idempotent()
  @ApiEndpoint({
    operationId: 'generateReport',
    replicaLag: true,
    summary: 'Start generating a sales report (admin)',
    description:
      'Returns 202 at once with the task to poll (`Location`, `statusUrl`). The report covers orders created ' +
      'from dateFrom to dateTo (UTC days, inclusive, at most 366 days): counts and amounts in all and by ' +
      'status, the top 10 products by quantity and by amount, and a per-day series.',
    headers: locationHeader('the task', '/api/v1/tasks/{taskId}'),
    type: TaskAcceptedResponse,
    successStatus: 202,
  })
  async generate(
    @CurrentCaller() caller: Caller,
    @Body() body: GenerateReportRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TaskAcceptedResponse> {
    const task = await this.tasks.startReport(caller, body);
    void reply.header('location', taskPath(task.taskId));
    return toTaskAccepted(task);
  }

  @Get(':reportId')
  @ApiEndpoint({
    operationId: 'getReport',
    summary: 'Get a generated report',
    description: 'The `resultUrl` of a completed REPORT_GENERATION task; visible to its owner and to admins.',
    errors: ['REPORT_NOT_FOUND'],
    type: ReportResponse,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('reportId') reportId: string,
  ): Promise<ReportResponse> {
    return toReportResponse(await this.results.report(caller, reportId));
  }
}
