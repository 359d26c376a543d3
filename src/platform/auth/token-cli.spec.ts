import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { DEV_JWT_SECRET } from '../config/app-config';
import { CommandOutput, runTokenCommand } from './token-cli';
import { TokenVerifier } from './token-verifier';

const SECRET = 'unit-test-secret-that-is-long-enough-0123456789';

async function run(argv: string[], env: Record<string, string | undefined> = { JWT_SECRET: SECRET }) {
  const out: string[] = [];
  const err: string[] = [];
  const output: CommandOutput = { out: (line) => out.push(line), err: (line) => err.push(line) };
  const code = await runTokenCommand(argv, env, output);
  return { code, out, err };
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('npm run token (runTokenCommand)', () => {
  const sub = randomUUID();

  it('prints only a token that the service accepts, with sub, roles and exp', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { code, out, err } = await run([
      '--sub',
      sub,
      '--role',
      'ADMIN',
      '--role',
      'CUSTOMER',
      '--ttl',
      '120',
    ]);

    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toHaveLength(1);
    const token = out[0] ?? '';
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256' });
    const verifier = TokenVerifier.fromConfig({ jwtSecret: SECRET, devSecret: false });
    await expect(verifier.verify(token)).resolves.toEqual({
      caller: { userId: sub, roles: ['CUSTOMER', 'ADMIN'] },
    });
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub, roles: ['ADMIN', 'CUSTOMER'] });
    expect(claims.exp).toBe((claims.iat as number) + 120);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
  });

  it('defaults to the CUSTOMER role and a one-hour lifetime', async () => {
    const { code, out } = await run(['--sub', sub]);
    expect(code).toBe(0);
    const claims = claimsOf(out[0] ?? '');
    expect(claims.roles).toEqual(['CUSTOMER']);
    expect(claims.exp).toBe((claims.iat as number) + 3600);
  });

  it('signs iss and aud when the service checks them', async () => {
    const env = { JWT_SECRET: SECRET, JWT_ISSUER: 'https://idp.test', JWT_AUDIENCE: 'orders' };
    const { out } = await run(['--sub', sub, '--role', 'ADMIN'], env);
    expect(claimsOf(out[0] ?? '')).toMatchObject({ iss: 'https://idp.test', aud: 'orders' });
  });

  it('signs with the development key, warning on stderr only, when JWT_SECRET is unset', async () => {
    const { code, out, err } = await run(['--sub', sub], {});
    expect(code).toBe(0);
    expect(err).toEqual([expect.stringMatching(/JWT_SECRET is not set/)]);
    const verifier = TokenVerifier.fromConfig({ jwtSecret: DEV_JWT_SECRET, devSecret: true });
    await expect(verifier.verify(out[0] ?? '')).resolves.toHaveProperty('caller.userId', sub);
  });

  it.each([
    ['no --sub', [], /--sub <uuid> is required/],
    ['a non-uuid --sub', ['--sub', 'alice'], /--sub must be a uuid/],
    ['an unknown role', ['--sub', sub, '--role', 'ROOT'], /--role must be CUSTOMER or ADMIN/],
    ['a zero ttl', ['--sub', sub, '--ttl', '0'], /--ttl must be/],
    ['a fractional ttl', ['--sub', sub, '--ttl', '1.5'], /--ttl must be/],
    ['an unknown option', ['--sub', sub, '--admin'], /Unknown option '--admin'/],
    ['a stray argument', ['--sub', sub, 'ADMIN'], /positional/i],
  ])('fails with exit code 1 and one line on stderr for %s', async (_case, argv, message) => {
    const { code, out, err } = await run(argv as string[]);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(message);
    expect(err[0]).not.toContain('\n');
  });

  it('refuses when the service trusts an identity provider instead of JWT_SECRET', async () => {
    const { code, out, err } = await run(['--sub', sub], {
      JWT_SECRET: SECRET,
      JWT_JWKS_URL: 'https://idp.test/jwks',
    });
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(err).toEqual([expect.stringMatching(/JWT_JWKS_URL is set/)]);
  });

  it('reports invalid configuration in one line', async () => {
    const { code, err } = await run(['--sub', sub], { JWT_SECRET: 'short' });
    expect(code).toBe(1);
    expect(err).toEqual([expect.stringMatching(/JWT_SECRET must be at least 32 characters/)]);
  });
});
