import type { JWTPayload } from 'jose';
import { Caller, Role, ROLES } from './caller';

/** Any uuid in its canonical 8-4-4-4-12 hex form (as class-validator's `IsUUID()` accepts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The role of a caller whose token names no known role: the least privileged one. */
export const DEFAULT_ROLES: readonly Role[] = ['CUSTOMER'];

/**
 * Maps the claims of a verified token to the caller, or null when they do not describe one: `sub` must be
 * a uuid (the user id, served in lower case), `roles` when present must be an array. Unknown role strings
 * are ignored; a token naming no known role (claim absent, empty, or only unknown names) is a `CUSTOMER`.
 */
export function callerFromClaims(claims: JWTPayload): Caller | null {
  const { sub } = claims;
  if (typeof sub !== 'string' || !isUuid(sub)) return null;
  const claimed: unknown = claims.roles;
  if (claimed !== undefined && !Array.isArray(claimed)) return null;
  const granted = new Set<unknown>(claimed ?? []);
  const roles = ROLES.filter((role) => granted.has(role));
  return { userId: sub.toLowerCase(), roles: roles.length > 0 ? roles : [...DEFAULT_ROLES] };
}
