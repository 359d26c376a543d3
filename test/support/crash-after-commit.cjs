// Test support, preloaded into a service process with `node -r`: the process kills itself (SIGKILL) right
// after a request's unit of work committed and before the request's answer is sent, the worst moment for a
// client's retry. CRASH_AFTER_COMMIT names the operations that crash, comma-separated, each as the method
// and route pattern (`POST /api/v1/orders/:orderId/confirm`); unset or empty, nothing happens. The channel is
// the one src/platform/http/request-transaction.ts publishes on (REQUEST_COMMITTED_CHANNEL).
'use strict';
const diagnosticsChannel = require('node:diagnostics_channel');

const operations = new Set(
  (process.env.CRASH_AFTER_COMMIT ?? '')
    .split(',')
    .map((operation) => operation.trim())
    .filter((operation) => operation !== ''),
);

if (operations.size > 0) {
  diagnosticsChannel.subscribe('order-service:request-committed', (message) => {
    if (operations.has(message.operation)) process.kill(process.pid, 'SIGKILL');
  });
}
