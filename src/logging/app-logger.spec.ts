import { Writable } from 'node:stream';
import { QueryFailedError } from 'typeorm';
import { AppLogger, createPinoLogger, safeError } from './app-logger';

describe('safeError (the err serializer of every log line)', () => {
  it('keeps type, message, stack and the SQLSTATE of a failed statement, never its parameters or detail', () => {
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "users_email"'),
      {
        code: '23505',
        detail: 'Key (email)=(alice@example.com) already exists.',
      },
    );
    const error = new QueryFailedError(
      'INSERT INTO users (email) VALUES ($1)',
      ['alice@example.com'],
      driverError,
    );
    const logged = safeError(error);
    expect(logged).toEqual({
      type: 'QueryFailedError',
      message: 'duplicate key value violates unique constraint "users_email"',
      stack: expect.any(String),
      code: '23505',
    });
    expect(JSON.stringify(logged)).not.toContain('alice@example.com');
  });

  it('describes what is not an Error', () => {
    expect(safeError(undefined)).toEqual({ type: 'undefined', message: 'undefined' });
  });
});

describe('secrets in log lines', () => {
  const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLXRoaXJ0eS10d28hIQ==';

  /** Lines an AppLogger writes, parsed. */
  function capture(): { logger: AppLogger; lines: () => Record<string, unknown>[] } {
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    return {
      logger: new AppLogger(createPinoLogger('info', sink)),
      lines: () =>
        chunks
          .join('')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>),
    };
  }

  it('are never written, at the top of an object or nested in it', () => {
    const { logger, lines } = capture();
    logger.log({ msg: 'endpoint created', webhookEndpointId: 'e1', secret: SECRET });
    logger.warn({ msg: 'endpoint', endpoint: { url: 'https://example.com/hook', secret: SECRET } });
    logger.error({ msg: 'rotation', rotation: { endpoint: { secrets: [SECRET, SECRET] } } }, 'Webhooks');
    logger.log({
      msg: 'config',
      config: { webhooks: { secretKey: Buffer.alloc(32, 1) }, auth: { jwtSecret: 'k' } },
    });
    const written = lines();
    expect(written).toHaveLength(4);
    expect(JSON.stringify(written)).not.toContain(SECRET.slice(6, 30));
    expect(written[0]).toMatchObject({
      msg: 'endpoint created',
      webhookEndpointId: 'e1',
      secret: '[redacted]',
    });
    expect(written[1]).toMatchObject({ endpoint: { url: 'https://example.com/hook', secret: '[redacted]' } });
    expect(written[2]).toMatchObject({ rotation: { endpoint: { secrets: '[redacted]' } } });
    expect(written[3]).toMatchObject({
      config: { webhooks: { secretKey: '[redacted]' }, auth: { jwtSecret: '[redacted]' } },
    });
  });
});
