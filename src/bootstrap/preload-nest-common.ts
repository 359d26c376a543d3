import { withDeferredDateFormats } from './deferred-date-format';

/**
 * Imported by the entry points (src/main.ts, src/worker.ts) right after telemetry and before anything else
 * requires `@nestjs/common`: it loads the package with date formatters deferred (see deferred-date-format.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the load must happen inside the window
withDeferredDateFormats(() => require('@nestjs/common') as unknown);
