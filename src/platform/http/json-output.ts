import { StreamableFile } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Stream } from 'node:stream';

/**
 * A point in time on the wire: `YYYY-MM-DDThh:mm:ssZ`, UTC, whole seconds. Fractions are cut, not rounded,
 * so a served instant is never later than the stored one.
 */
export function formatTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  // Built from the UTC fields, cheaper than `toISOString().slice()`. Years outside
  // 1000–9999 (and invalid Dates) take the ISO path, which pads them.
  if (!(year >= 1000 && year <= 9999)) {
    if (Number.isNaN(date.getTime())) throw new RangeError('an invalid Date cannot be served as a timestamp');
    return `${date.toISOString().slice(0, 19)}Z`;
  }
  return `${year}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}T${twoDigits(
    date.getUTCHours(),
  )}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}Z`;
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

/** Fields with one of these values have no value and are left out. */
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
 * The JSON output rules of 2xx bodies, in one place:
 * - an object field that is `null`, `undefined` or `""` is omitted, at any depth;
 * - an empty collection stays `[]`; array elements are kept as they are, in place (their position carries
 *   meaning, and the rule is about fields), with the rules applied inside them;
 * - a `Date` becomes `YYYY-MM-DDThh:mm:ssZ`;
 * - strings, Buffers, streams, files and objects with their own `toJSON` pass untouched, so an already
 *   serialized body (an idempotent replay, an order rendered by PostgreSQL: `sendJsonText`) is sent byte
 *   for byte.
 * A top-level `null` becomes `undefined` (no body). Class instances come out as plain objects.
 */
export function toJsonOutput(value: unknown): unknown {
  if (value === null) return undefined;
  return toJsonValue(value);
}

/**
 * A body that is JSON text already in output form (an order rendered by PostgreSQL, a page of them), given
 * in parts, sent as it is. The parts are written into one Buffer: a string body of a page's size would be
 * copied on the V8 heap twice more (flattened for its length, and again with the headers for the socket).
 * Fastify sends a Buffer as given, with the type set here, and neither serializes it nor passes it through
 * the rules.
 */
export function sendJsonText(reply: FastifyReply, parts: readonly string[]): Buffer {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const body = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const part of parts) offset += body.write(part, offset);
  void reply.header('content-type', 'application/json; charset=utf-8');
  return body;
}
