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
  if (value instanceof Date) return formatTimestamp(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value !== 'object' || value === null || isOpaque(value)) return value;
  const output: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const converted = toJsonValue(field);
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
