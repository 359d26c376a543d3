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

/** Lines an AppLogger at `level` writes, parsed. */
function capture(level = 'info'): { logger: AppLogger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    logger: new AppLogger(createPinoLogger(level, sink)),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('secrets in log lines', () => {
  const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LW9mLXRoaXJ0eS10d28hIQ==';

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

describe('start-up lines', () => {
  function linesAt(level: string, write: (logger: AppLogger) => void): Array<Record<string, unknown>> {
    const { logger, lines } = capture(level);
    write(logger);
    return lines();
  }

  const start = (logger: AppLogger) => {
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('OrdersController {/api/orders} (version: 1):', 'RoutesResolver');
    logger.log('Mapped {/api/orders, GET} (version: 1) route', 'RouterExplorer');
    logger.log('No migrations are pending', 'Database');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('listening on http://127.0.0.1:3000 (role all)', 'Main');
    logger.warn('a warning stays a warning', 'Database');
  };

  it("are one at info: the framework's module and route lines and the migration progress are debug", () => {
    expect(linesAt('info', start).map((line) => [line.level, line.msg])).toEqual([
      [30, 'listening on http://127.0.0.1:3000 (role all)'],
      [40, 'a warning stays a warning'],
    ]);
    const debug = linesAt('debug', start);
    expect(debug).toHaveLength(8);
    expect(debug.find((line) => line.context === 'RouterExplorer')).toMatchObject({ level: 20 });
  });
});
