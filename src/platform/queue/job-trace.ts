import { JobInterrupted } from './job-queue';
import { currentTrace, JobSpan, runInTrace, spanSource, startSpan } from '../tracing/trace-context';

/** Job data as queued: the producer's payload plus the trace it was queued in. */
export interface TracedJobData<T> {
  payload: T;
  traceparent?: string;
}

/** Wraps a payload with the current request's traceparent, so the job continues its trace. */
export function withTrace<T>(payload: T): TracedJobData<T> {
  return { payload, traceparent: currentTrace()?.traceparent };
}

/**
 * Queues a job through `add`: with OpenTelemetry on, inside a producer span whose id the job carries, so the
 * job's consumer span is its child; otherwise with the current trace, as `withTrace`.
 */
export function enqueueTraced<T, R>(
  job: JobSpan,
  payload: T,
  add: (data: TracedJobData<T>) => Promise<R>,
): Promise<R> {
  const source = spanSource();
  if (!source) return add(withTrace(payload));
  return source.produce(job, (traceparent) => add({ payload, traceparent }));
}

/**
 * Runs a job's handler in a new span of the producer's trace (or a new trace): logs carry its trace id, and
 * with OpenTelemetry on it is a consumer span whose statements are its children. A hand-back on shutdown is
 * no error of the span.
 */
export function runTraced<R>(
  data: TracedJobData<unknown>,
  fn: (payload: unknown) => Promise<R>,
  job?: JobSpan,
): Promise<R> {
  const source = spanSource();
  if (!source || !job) return runInTrace(startSpan(data.traceparent), () => fn(data.payload));
  return source.consume(
    job,
    data.traceparent,
    (trace) => runInTrace(trace, () => fn(data.payload)),
    (error) => error instanceof JobInterrupted,
  );
}
