import { StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { formatTimestamp, sendJsonText, toJsonOutput } from './json-output';

describe('toJsonOutput', () => {
  it('omits object fields that are null, undefined or "", at any depth', () => {
    expect(
      toJsonOutput({ a: null, b: undefined, c: '', d: 'x', nested: { e: null, f: { g: '', h: 1 } } }),
    ).toEqual({ d: 'x', nested: { f: { h: 1 } } });
  });

  it('keeps values that are not empty: 0, false, whitespace, empty objects and empty arrays', () => {
    expect(toJsonOutput({ zero: 0, no: false, space: ' ', object: {}, list: [] })).toEqual({
      zero: 0,
      no: false,
      space: ' ',
      object: {},
      list: [],
    });
  });

  it('keeps array elements in place and applies the rules inside them', () => {
    expect(toJsonOutput([{ a: null, b: 1 }, [{ c: '' }], 'x'])).toEqual([{ b: 1 }, [{}], 'x']);
    expect(toJsonOutput([])).toEqual([]);
  });

  it('turns Dates into YYYY-MM-DDThh:mm:ssZ, cutting fractions', () => {
    const instant = new Date('2024-12-31T23:59:59.999Z');
    expect(toJsonOutput({ at: instant, list: [instant] })).toEqual({
      at: '2024-12-31T23:59:59Z',
      list: ['2024-12-31T23:59:59Z'],
    });
    expect(toJsonOutput(instant)).toBe('2024-12-31T23:59:59Z');
  });

  it('formats every instant as the ISO form cut to whole seconds, in years with four digits and beyond', () => {
    const reference = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;
    const instants = [
      Date.UTC(999, 11, 31, 23, 59, 59, 999),
      Date.UTC(1000, 0, 1),
      Date.UTC(1970, 0, 1),
      Date.UTC(2024, 1, 29, 9, 5, 7, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 5, 15),
    ];
    // A spread of instants across the whole range PostgreSQL's timestamptz and a Date share.
    for (let i = 0; i < 2000; i += 1) instants.push(Math.round(-8.64e15 + (i / 2000) * 1.72e16 + i * 7919));
    for (const time of instants) {
      const date = new Date(time);
      expect(formatTimestamp(date)).toBe(reference(date));
    }
    expect(formatTimestamp(new Date(Date.UTC(999, 0, 1)))).toBe('0999-01-01T00:00:00Z');
  });

  it('converts an instant in another zone to UTC', () => {
    expect(formatTimestamp(new Date('2025-06-01T03:00:00+03:00'))).toBe('2025-06-01T00:00:00Z');
  });

  it('refuses an invalid Date instead of serving a broken timestamp', () => {
    expect(() => toJsonOutput({ at: new Date('nope') })).toThrow(RangeError);
  });

  it('reads class instances as plain objects', () => {
    class View {
      constructor(
        readonly id: string,
        readonly note: string | null,
      ) {}
    }
    expect(toJsonOutput(new View('v1', null))).toEqual({ id: 'v1' });
  });

  it('leaves strings, Buffers, streams, files and self-serializing objects untouched', () => {
    const buffer = Buffer.from('{"a":null}');
    const stream = Readable.from(['x']);
    const file = new StreamableFile(Buffer.from('x'));
    const money = { toJSON: () => '12.50', cents: null };
    expect(toJsonOutput('{"a":null}')).toBe('{"a":null}');
    expect(toJsonOutput('')).toBe('');
    expect(toJsonOutput(buffer)).toBe(buffer);
    expect(toJsonOutput(stream)).toBe(stream);
    expect(toJsonOutput(file)).toBe(file);
    expect((toJsonOutput({ total: money }) as { total: unknown }).total).toBe(money);
  });

  it('a top-level null or undefined is no body', () => {
    expect(toJsonOutput(null)).toBeUndefined();
    expect(toJsonOutput(undefined)).toBeUndefined();
  });
});

describe('sendJsonText', () => {
  it('writes the parts into one Buffer, in UTF-8, and types the reply as JSON', () => {
    const headers: Record<string, string> = {};
    const reply = {
      header(name: string, value: string) {
        headers[name] = value;
        return this;
      },
    } as unknown as FastifyReply;
    const body = sendJsonText(reply, ['{"content":', '[{"name":"Ёлка 😀"}]', ',"page":1}']);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(body.toString('utf8')).toBe('{"content":[{"name":"Ёлка 😀"}],"page":1}');
    expect(body.length).toBe(Buffer.byteLength('{"content":[{"name":"Ёлка 😀"}],"page":1}'));
    expect(headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  });
});
