import { withDeferredDateFormats } from './deferred-date-format';

describe('withDeferredDateFormats', () => {
  const options: Intl.DateTimeFormatOptions = {
    timeZone: 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: 'numeric',
    minute: 'numeric',
  };
  const instant = Date.UTC(2026, 10, 24, 13, 5, 9);

  it('builds the real formatter only when first used, once, with the arguments given', () => {
    const built: unknown[][] = [];
    const Real = Intl.DateTimeFormat;
    const Counting = function (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      built.push(args);
      return new Real(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Object.defineProperty(Counting, 'supportedLocalesOf', { value: Real.supportedLocalesOf.bind(Real) });
    const intl = { DateTimeFormat: Counting };

    const formatter = withDeferredDateFormats(() => new intl.DateTimeFormat('en-GB', options), intl);
    expect(built).toHaveLength(0);
    expect(intl.DateTimeFormat).toBe(Counting);

    expect(formatter.format(instant)).toBe(new Real('en-GB', options).format(instant));
    expect(formatter.format(instant + 60_000)).toBe(new Real('en-GB', options).format(instant + 60_000));
    expect(built).toEqual([['en-GB', options]]);
  });

  it('forwards every member: parts, ranges, resolved options, a detached format', () => {
    const formatter = withDeferredDateFormats(() => new Intl.DateTimeFormat('ru', options));
    const real = new Intl.DateTimeFormat('ru', options);
    expect(formatter.formatToParts(instant)).toEqual(real.formatToParts(instant));
    expect(formatter.formatRange(instant, instant + 86_400_000)).toBe(
      real.formatRange(instant, instant + 86_400_000),
    );
    expect(formatter.resolvedOptions()).toEqual(real.resolvedOptions());
    const { format } = formatter;
    expect([instant].map(format)).toEqual([real.format(instant)]);
    expect(formatter.format).toBe(formatter.format);
  });

  it('looks like a formatter: instanceof, `in`, the tag, the statics while it stands in', () => {
    const { formatter, supported } = withDeferredDateFormats(() => ({
      formatter: new Intl.DateTimeFormat('en', options),
      supported: Intl.DateTimeFormat.supportedLocalesOf(['ru', 'en']),
    }));
    expect(formatter).toBeInstanceOf(Intl.DateTimeFormat);
    expect('format' in formatter).toBe(true);
    expect(Object.prototype.toString.call(formatter)).toBe('[object Intl.DateTimeFormat]');
    expect(supported).toEqual(Intl.DateTimeFormat.supportedLocalesOf(['ru', 'en']));
  });

  it('puts the real constructor back, also when the load throws', () => {
    const Real = Intl.DateTimeFormat;
    expect(() =>
      withDeferredDateFormats(() => {
        expect(Intl.DateTimeFormat).not.toBe(Real);
        throw new Error('load failed');
      }),
    ).toThrow('load failed');
    expect(Intl.DateTimeFormat).toBe(Real);
  });

  it("Nest's console logger, loaded this way, prints its timestamps as before", () => {
    jest.isolateModules(() => {
      type WithTimestamp = { getTimestamp(): string };
      const common = withDeferredDateFormats(
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the package
        () => require('@nestjs/common') as typeof import('@nestjs/common'),
      );
      const logger = new common.ConsoleLogger() as unknown as WithTimestamp;
      const expected = new Intl.DateTimeFormat(undefined, {
        year: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        day: '2-digit',
        month: '2-digit',
      });
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now);
      try {
        expect(logger.getTimestamp()).toBe(expected.format(now));
      } finally {
        jest.restoreAllMocks();
      }
    });
  });
});
