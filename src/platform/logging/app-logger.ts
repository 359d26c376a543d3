import { Logger as NestLogger, LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { currentTrace } from '../tracing/trace-context';

/**
 * An error as logs may show it: its type, message, stack and codes (SQLSTATE for database errors), never
 * the SQL parameters, the statement or the driver's `detail` (they carry request data, e.g. "Key
 * (email)=(...) already exists").
 */
export function safeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const record: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  const sqlState = driverError?.code ?? code;
  if (typeof sqlState === 'string' || typeof sqlState === 'number') record.code = sqlState;
  return record;
}

/**
 * Fields whose values never reach a log: secrets shown once to their owner (webhook signing secrets) and keys.
 * Under these names, at the top of a logged object or up to two levels inside it, a value is written as
 * `[redacted]`.
 */
export const SECRET_FIELDS = ['secret', 'secrets', 'secretKey', 'signingKey', 'jwtSecret'] as const;
const SECRET_PATHS = SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

/** JSON logs (pino), one object per line, with the trace id of the current request or job on every line. */
export function createPinoLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'order-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: safeError },
      redact: { paths: SECRET_PATHS, censor: '[redacted]' },
      mixin() {
        const trace = currentTrace();
        return trace ? { traceId: trace.traceId, spanId: trace.spanId } : {};
      },
    },
    destination,
  );
}

/**
 * Contexts whose info lines are start-up detail, written at debug so that a start says one line at info: Nest's
 * (every module initialised, every route mapped) and TypeORM's migration progress (the `Database` context of
 * the TypeORM logger).
 */
const START_UP_DETAIL_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'Database',
]);

/** Nest's logger interface over pino, so framework and application logs share one format. */
export class AppLogger implements LoggerService {
  constructor(readonly pinoLogger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write(context && START_UP_DETAIL_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, traceOrContext?: string, context?: string): void {
    const stack = context ? traceOrContext : undefined;
    this.write('error', message, context ?? traceOrContext, stack);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string, stack?: string): void {
    if (message instanceof Error) {
      this.pinoLogger[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pinoLogger[level]({ context, ...message });
    } else {
      this.pinoLogger[level]({ context, ...(stack ? { stack } : {}) }, String(message));
    }
  }
}

let processLogger: AppLogger | undefined;

/**
 * The logger of this process, made once and set as Nest's static logger, so every line — the ones logged
 * before an application exists (the embedded database, start-up failures) included — is one JSON object.
 * Entry points call it first; the level may be raised once the configuration is read.
 */
export function useProcessLogger(level = 'info'): AppLogger {
  if (!processLogger) {
    processLogger = new AppLogger(createPinoLogger(level));
    NestLogger.overrideLogger(processLogger);
  } else {
    processLogger.pinoLogger.level = level;
  }
  return processLogger;
}

/**
 * A refusal to go on whose message says all there is to say, with the way out (a bad setting, a data directory
 * in use): logged as that one line, without a stack. Any other error keeps its stack.
 */
export class Refusal extends Error {}

/** Logs why the process cannot go on (one JSON line) and exits with status 1. */
export function exitWithError(msg: string, error?: unknown): never {
  const logger = useProcessLogger();
  logger.pinoLogger.fatal(error === undefined || error instanceof Refusal ? { msg } : { msg, err: error });
  process.exit(1);
}
