import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { currentTrace } from '../tracing/trace-context';

/** JSON logs (pino) with the trace id of the current request or job on every line. */
export function createPinoLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'order-service' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const trace = currentTrace();
      return trace ? { traceId: trace.traceId, spanId: trace.spanId } : {};
    },
  });
}

/** Nest's logger interface over pino, so framework and application logs share one format. */
export class AppLogger implements LoggerService {
  constructor(private readonly pinoLogger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
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
