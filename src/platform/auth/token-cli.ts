import { parseArgs } from 'node:util';
import { loadConfig } from '../config/app-config';
import { isRole, Role } from './caller';
import { DEFAULT_ROLES, isUuid } from './token-claims';
import { DEFAULT_TOKEN_TTL_SECONDS, signAccessToken } from './token-signer';

/** Where the command writes: the token alone on `out`, everything else on `err`. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

export const TOKEN_USAGE =
  'usage: npm run token -- --sub <uuid> [--role CUSTOMER|ADMIN]... [--ttl <seconds>]';

/** A token is a development convenience; a year is past any sensible local session. */
const MAX_TTL_SECONDS = 365 * 24 * 3600;

class UsageError extends Error {}

interface TokenRequest {
  sub: string;
  roles: Role[];
  ttlSeconds: number;
}

function parseTokenRequest(argv: string[]): TokenRequest | 'help' {
  let values: { sub?: string; role?: string[]; ttl?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        sub: { type: 'string' },
        role: { type: 'string', multiple: true },
        ttl: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return 'help';
  if (values.sub === undefined) throw new UsageError('--sub <uuid> is required');
  if (!isUuid(values.sub)) throw new UsageError(`--sub must be a uuid (got "${values.sub}")`);

  const roles: Role[] = [];
  for (const raw of values.role ?? []) {
    const role = raw.toUpperCase();
    if (!isRole(role)) throw new UsageError(`--role must be CUSTOMER or ADMIN (got "${raw}")`);
    if (!roles.includes(role)) roles.push(role);
  }

  const ttlText = values.ttl ?? String(DEFAULT_TOKEN_TTL_SECONDS);
  const ttlSeconds = /^\d+$/.test(ttlText) ? Number(ttlText) : NaN;
  if (!(ttlSeconds >= 1 && ttlSeconds <= MAX_TTL_SECONDS)) {
    throw new UsageError(
      `--ttl must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (got "${ttlText}")`,
    );
  }
  return { sub: values.sub.toLowerCase(), roles: roles.length > 0 ? roles : [...DEFAULT_ROLES], ttlSeconds };
}

/**
 * `npm run token`: prints a bearer token signed with JWT_SECRET, exactly as the service verifies it.
 * Returns the exit code; any mistake is one line on `err`.
 */
export async function runTokenCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  output: CommandOutput,
): Promise<number> {
  try {
    const request = parseTokenRequest(argv);
    if (request === 'help') {
      output.out(TOKEN_USAGE);
      return 0;
    }
    const { auth } = loadConfig(env);
    if (auth.jwksUrl) {
      throw new Error("JWT_JWKS_URL is set: the service accepts only its identity provider's tokens");
    }
    if (auth.devSecret) output.err('warning: JWT_SECRET is not set; signing with the development key');
    output.out(
      await signAccessToken(auth.jwtSecret, { ...request, issuer: auth.issuer, audience: auth.audience }),
    );
    return 0;
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    output.err(error instanceof UsageError ? `${message}; ${TOKEN_USAGE}` : message);
    return 1;
  }
}
