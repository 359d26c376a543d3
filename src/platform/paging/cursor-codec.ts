import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppException } from '../problem/app-exception';

/** Where a cursor points: the sort-key values of a row, and which way the client travels from it. */
export interface CursorPosition {
  direction: 'next' | 'prev';
  values: string[];
}

/**
 * Opaque, signed cursors (HMAC-SHA256 with a server key) bound to the query that issued them: the binding
 * (filters, sort and the caller's scope) is part of the signed payload, so a tampered, foreign or
 * mismatched cursor is refused with INVALID_CURSOR instead of returning wrong rows.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  static binding(query: unknown): string {
    return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 22);
  }

  encode(position: CursorPosition, binding: string): string {
    const payload = Buffer.from(
      JSON.stringify({ d: position.direction === 'next' ? 'n' : 'p', v: position.values, b: binding }),
    ).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(token: string, binding: string, keyCount: number): CursorPosition {
    const [payload, signature, ...rest] = token.split('.');
    const expected = payload ? this.sign(payload) : '';
    const valid =
      rest.length === 0 &&
      signature !== undefined &&
      signature.length === expected.length &&
      timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    if (!valid) throw invalidCursor();
    let parsed: { d?: unknown; v?: unknown; b?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      throw invalidCursor();
    }
    const values = parsed.v;
    if (
      parsed.b !== binding ||
      (parsed.d !== 'n' && parsed.d !== 'p') ||
      !Array.isArray(values) ||
      values.length !== keyCount ||
      !values.every((v) => typeof v === 'string')
    ) {
      throw invalidCursor();
    }
    return { direction: parsed.d === 'n' ? 'next' : 'prev', values: values as string[] };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}

function invalidCursor(): AppException {
  return AppException.validation([{ field: 'cursor', code: 'INVALID_CURSOR' }]);
}
