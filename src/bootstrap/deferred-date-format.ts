/**
 * Nest's ConsoleLogger builds an `Intl.DateTimeFormat` when its module loads, for the timestamps of its own
 * console output, which this service never prints (its logs are JSON lines, src/logging). Building any date
 * formatter makes ICU map its locale and time-zone data: ~5.5 MB of the executable's pages stay resident
 * from start, for nothing (docs/benchmarks.md, idle RSS on Node 24). The entry points therefore load
 * `@nestjs/common` through `withDeferredDateFormats`: a formatter built while it loads builds the real one,
 * with the same arguments, on first use; every formatter built afterwards is a real one.
 */

type DateTimeFormatConstructor = typeof Intl.DateTimeFormat;

/**
 * A stand-in that builds the real formatter when a member is first read, and forwards to it. What it cannot
 * be: a receiver for `Intl.DateTimeFormat.prototype` methods called on it directly (they check their
 * receiver); and arguments a real formatter would refuse throw on first use instead of at construction.
 */
function deferredFormatter(
  Real: DateTimeFormatConstructor,
  args: ConstructorParameters<DateTimeFormatConstructor>,
): Intl.DateTimeFormat {
  let real: Intl.DateTimeFormat | undefined;
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy({} as Intl.DateTimeFormat, {
    get(_target, key) {
      real ??= new Real(...args);
      const value: unknown = Reflect.get(real, key, real);
      if (typeof value !== 'function') return value;
      // One bound function per member, so `f.format === f.format` as on a real formatter.
      if (!bound.has(key)) bound.set(key, (value as (...a: unknown[]) => unknown).bind(real));
      return bound.get(key);
    },
    has: (_target, key) => key in Real.prototype,
    getPrototypeOf: () => Real.prototype,
  });
}

/** Runs `load` with date formatters deferred, and puts `intl.DateTimeFormat` back however `load` ends. */
export function withDeferredDateFormats<T>(
  load: () => T,
  intl: { DateTimeFormat: DateTimeFormatConstructor } = Intl,
): T {
  const Real = intl.DateTimeFormat;
  const Deferred = function (...args: ConstructorParameters<DateTimeFormatConstructor>) {
    return deferredFormatter(Real, args);
  } as unknown as DateTimeFormatConstructor;
  // `instanceof` and the statics (`supportedLocalesOf`) answer as the real constructor's while it stands in.
  Object.defineProperty(Deferred, 'prototype', { value: Real.prototype });
  Object.defineProperty(Deferred, 'supportedLocalesOf', { value: Real.supportedLocalesOf.bind(Real) });
  intl.DateTimeFormat = Deferred;
  try {
    return load();
  } finally {
    intl.DateTimeFormat = Real;
  }
}
