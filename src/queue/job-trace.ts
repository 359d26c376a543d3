import { currentTrace, runInTrace, startSpan } from '../tracing/trace-context';

/** Job data as queued: the producer's payload plus the trace it was queued in. */
export interface TracedJobData<T> {
  payload: T;
  traceparent?: string;
}

/** Wraps a payload with the current request's traceparent, so the job continues its trace. */
export function withTrace<T>(payload: T): TracedJobData<T> {
  return { payload, traceparent: currentTrace()?.traceparent };
}

/** Runs a job's handler in a new span of the producer's trace (or a new trace): logs carry its trace id. */
export function runTraced<R>(data: TracedJobData<unknown>, fn: (payload: unknown) => Promise<R>): Promise<R> {
  return runInTrace(startSpan(data.traceparent), () => fn(data.payload));
}
