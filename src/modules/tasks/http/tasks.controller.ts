import { Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { ResponseLanguage } from '../../../platform/problem/response-language';
import { VersionedController } from '../../../platform/versioning/api-version';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import type { Language } from '../../../platform/problem/language';
import { ProblemRenderer } from '../../../platform/problem/problem-renderer';
import { integer, schemaOf } from '../../../platform/validation/fields';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { TasksService } from '../tasks.service';
import { TaskResponse } from './dto/task.dto';
import { POLL_RETRY_AFTER_SECONDS, sendTask, toTaskResponse } from './task.view';

/** Polling and cancelling long-running tasks. */
@ApiTags('Tasks')
@VersionedController('tasks', 1)
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly problems: ProblemRenderer,
  ) {}

  @Get(':taskId')
  @ApiEndpoint({
    operationId: 'getTask',
    summary: 'Get the status of a long-running task',
    description:
      'Poll until COMPLETED (then follow `resultUrl`), FAILED (`error`) or CANCELLED; 200 in every status. ' +
      '`Retry-After` suggests the polling interval while PENDING or PROCESSING. Visible to the user who ' +
      'started the task and to admins.',
    errors: ['TASK_NOT_FOUND'],
    headers: {
      'Retry-After': {
        description: 'While PENDING or PROCESSING: seconds to wait before polling again.',
        schema: schemaOf(integer({ min: 1, max: Number(POLL_RETRY_AFTER_SECONDS), example: 2 })),
      },
    },
    type: TaskResponse,
  })
  async get(
    @CurrentCaller() caller: Caller,
    @UuidParam('taskId') taskId: string,
    @ResponseLanguage() lang: Language,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TaskResponse> {
    return sendTask(reply, await this.tasks.get(caller, taskId), this.problems, lang);
  }

  @Post(':taskId/cancel')
  @HttpCode(200)
  @ApiEndpoint({
    operationId: 'cancelTask',
    summary: 'Cancel a pending or running task',
    description:
      'PENDING or PROCESSING → CANCELLED; a running task stops at its next progress step and writes no ' +
      'result. A task that has already ended is 409 INVALID_TASK_STATE.',
    errors: ['TASK_NOT_FOUND', 'INVALID_TASK_STATE'],
    type: TaskResponse,
  })
  async cancel(
    @CurrentCaller() caller: Caller,
    @UuidParam('taskId') taskId: string,
    @ResponseLanguage() lang: Language,
  ): Promise<TaskResponse> {
    return toTaskResponse(await this.tasks.cancel(caller, taskId), this.problems, lang);
  }
}
