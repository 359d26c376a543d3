import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import type { Task } from '../../../src/modules/tasks/domain/task';
import { currentTrace } from '../../../src/platform/tracing/trace-context';
import { TaskHandlers, TaskRun } from '../../../src/modules/tasks/task-handlers';
import { TasksModule } from '../../../src/modules/tasks/tasks.module';

/**
 * The test hook of task processors: wraps every registered handler so a test can make the runs of chosen
 * tasks slow (a pause at every progress step, to watch progress and to cancel mid-run) or fail (every
 * attempt throws, to see retries end in FAILED). Tasks are chosen by a predicate over the task.
 */
@Injectable()
export class TasksProbe implements OnModuleInit {
  /** Runs of matching tasks pause this long at every progress step. */
  slow: Array<{ matches: (task: Task) => boolean; pauseMs: number }> = [];
  /** Runs of matching tasks throw; `runs` counts the attempts seen per task. */
  failing: Array<(task: Task) => boolean> = [];
  readonly runs = new Map<string, number>();
  /** The trace id each task's last run ran in. */
  readonly traces = new Map<string, string | undefined>();
  /** How each task's last run ended: 'completed', or the name of the error it threw. */
  readonly ended = new Map<string, string>();

  constructor(private readonly handlers: TaskHandlers) {}

  onModuleInit(): void {
    for (const handler of this.handlers.all()) {
      const original = handler.run.bind(handler);
      this.handlers.register({
        type: handler.type,
        concurrency: handler.concurrency,
        run: async (run: TaskRun) => {
          const { task } = run;
          this.runs.set(task.taskId, (this.runs.get(task.taskId) ?? 0) + 1);
          this.traces.set(task.taskId, currentTrace()?.traceId);
          if (this.failing.some((matches) => matches(task))) throw new Error('probe: forced failure');
          const pause = this.slow.find((s) => s.matches(task))?.pauseMs ?? 0;
          const slowed: TaskRun =
            pause === 0
              ? run
              : {
                  ...run,
                  progress: async (percent) => {
                    await new Promise((resolve) => setTimeout(resolve, pause));
                    await run.progress(percent);
                  },
                };
          try {
            await original(slowed);
            this.ended.set(task.taskId, 'completed');
          } catch (error: unknown) {
            this.ended.set(task.taskId, error instanceof Error ? error.name : String(error));
            throw error;
          }
        },
      });
    }
  }
}

@Module({ imports: [TasksModule], providers: [TasksProbe] })
export class TasksProbeModule {}
