import {
  currentTrace,
  parseTraceparent,
  runInTrace,
  serverTrace,
  SpanSource,
  startSpan,
  TraceContext,
  useSpanSource,
} from './trace-context';

describe('traceparent', () => {
  const valid = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('parses a valid header', () => {
    expect(parseTraceparent(valid)).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      parentSpanId: 'b7ad6b7169203331',
      flags: 1,
    });
  });

  it.each([
    ['00-00000000000000000000000000000000-b7ad6b7169203331-01', 'all-zero trace id'],
    ['00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', 'all-zero parent id'],
    ['ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'version ff'],
    ['00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', 'upper-case hex'],
    ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra', 'extra field in version 00'],
    ['garbage', 'garbage'],
  ])('rejects %s (%s)', (value) => {
    expect(parseTraceparent(value)).toBeNull();
  });

  it('continues an incoming trace with a new span id and keeps the sampled flag', () => {
    const span = startSpan('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00');
    expect(span.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span.parentSpanId).toBe('b7ad6b7169203331');
    expect(span.spanId).not.toBe('b7ad6b7169203331');
    expect(span.traceparent).toBe(`00-${span.traceId}-${span.spanId}-00`);
  });

  it('starts a new trace when the header is absent or invalid', () => {
    const span = startSpan('00-00000000000000000000000000000000-b7ad6b7169203331-01');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toMatch(/^0+$/);
    expect(span.parentSpanId).toBeUndefined();
    expect(span.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('gives every span fresh ids, also across refills of the random pool', () => {
    const spans = Array.from({ length: 2000 }, () => startSpan(undefined));
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(spans.length);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    for (const span of spans) expect(span.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});

describe('span source', () => {
  const made: TraceContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: '00f067aa0ba902b7',
    sampled: true,
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01',
    handle: 'its own context',
  };
  const entered: unknown[] = [];
  const fake: SpanSource = {
    serverSpan: (method, route) => (route ? { ...made, handle: `${method} ${route}` } : undefined),
    enter: (trace, fn) => {
      entered.push(trace.handle);
      return fn();
    },
    produce: (_job, fn) => fn(made.traceparent),
    consume: (_job, _traceparent, fn) => fn(made),
  };
  afterEach(() => {
    useSpanSource(undefined);
    entered.length = 0;
  });

  it('is not consulted unless registered: the service makes its own ids', () => {
    const trace = serverTrace('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'GET', '/x');
    expect(trace.parentSpanId).toBe('b7ad6b7169203331');
    expect(trace.handle).toBeUndefined();
  });

  it('gives the server span when it traced the request, and the service falls back when it did not', () => {
    useSpanSource(fake);
    expect(serverTrace(undefined, 'GET', '/api/v1/orders/:orderId')).toMatchObject({
      spanId: made.spanId,
      handle: 'GET /api/v1/orders/:orderId',
    });
    const fallback = serverTrace('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'GET', undefined);
    expect(fallback.parentSpanId).toBe('b7ad6b7169203331');
  });

  it('enters its context wherever the service enters a trace', () => {
    useSpanSource(fake);
    const seen = runInTrace(made, () => currentTrace()?.spanId);
    expect(seen).toBe(made.spanId);
    expect(entered).toEqual(['its own context']);
  });
});
