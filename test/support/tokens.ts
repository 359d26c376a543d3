import { randomUUID } from 'node:crypto';
import type { Role } from '../../src/platform/auth/caller';
import { signAccessToken } from '../../src/platform/auth/token-signer';
import type { AppConfig } from '../../src/platform/config/app-config';

/** A caller's id and the `Authorization` header value that authenticates them. */
export interface CallerToken {
  sub: string;
  authorization: string;
}

/** `Authorization` header value (`Bearer <jwt>`) the booted app accepts, for `sub` with `roles`. */
export async function bearer(
  config: AppConfig,
  roles: Role[] = ['CUSTOMER'],
  sub: string = randomUUID(),
): Promise<string> {
  const { jwtSecret, issuer, audience } = config.auth;
  return `Bearer ${await signAccessToken(jwtSecret, { sub, roles, issuer, audience })}`;
}

/** Like `bearer`, also returning the user id, for tests that check ownership. */
export async function callerToken(
  config: AppConfig,
  roles: Role[] = ['CUSTOMER'],
  sub: string = randomUUID(),
): Promise<CallerToken> {
  return { sub, authorization: await bearer(config, roles, sub) };
}
