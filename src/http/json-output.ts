import { StreamableFile } from '@nestjs/common';
import { Stream } from 'node:stream';

/**
 * A point in time on the wire: `YYYY-MM-DDThh:mm:ssZ`, UTC, whole seconds (contract convention 10,
 * DECISIONS "Orders"). Fractions are cut, not rounded, so a served instant is never later than the stored one.
 */
export function formatTimestamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('an invalid Date cannot be served as a timestamp');
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Fields with one of these values have no value and are left out (contract convention 12). */
function isEmptyField(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * Values the rules do not reach into: bodies already serialized or binary (strings, Buffers, typed arrays,
 * streams, files) and objects that serialize themselves (`toJSON`).
 */
function isOpaque(value: object): boolean {
  return (
    value instanceof Stream ||
    value instanceof StreamableFile ||
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

function toJsonValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return formatTimestamp(value);
  if (Array.isArray(value)) {
    const output = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) output[i] = toJsonValue(value[i]);
    return output;
  }
  // Plain objects (what views build) can only be opaque by their own `toJSON`.
  const prototype = Object.getPrototypeOf(value) as unknown;
  const plain = prototype === Object.prototype || prototype === null;
  if (plain ? typeof (value as { toJSON?: unknown }).toJSON === 'function' : isOpaque(value)) return value;
  const output: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const converted = toJsonValue((value as Record<string, unknown>)[name]);
    if (!isEmptyField(converted)) output[name] = converted;
  }
  return output;
}

/**
 * The JSON output rules of 2xx bodies, in one place (contract conventions 10–12):
 * - an object field that is `null`, `undefined` or `""` is omitted, at any depth;
 * - an empty collection stays `[]`; array elements are kept as they are, in place (their position carries
 *   meaning, and convention 12 is about fields), with the rules applied inside them;
 * - a `Date` becomes `YYYY-MM-DDThh:mm:ssZ`;
 * - strings, Buffers, streams, files and objects with their own `toJSON` pass untouched, so an already
 *   serialized body (an idempotent replay) is sent byte for byte.
 * A top-level `null` becomes `undefined` (no body). Class instances come out as plain objects.
 */
export function toJsonOutput(value: unknown): unknown {
  if (value === null) return undefined;
  return toJsonValue(value);
}
