import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from './net';
import { until } from './wait';

/** A `worker`-role process of the service (`node dist/src/worker.js`), started by a test. */
export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
}

const ROOT = path.resolve(__dirname, '../..');

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a worker with the test's environment and `env` (undefined: left out); resolves once it is ready. */
export async function startWorker(env: Record<string, string | undefined>): Promise<WorkerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/worker.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      APP_ROLE: 'worker',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await until(`the worker to be ready`, async () => {
    if (child.exitCode !== null) throw new Error(`worker exited: ${output}`);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
    return ready?.status === 200;
  });
  return { child, output: () => output };
}

/** Kills `worker` (SIGKILL, as a crash) unless it has exited, and waits for its end. */
export async function killWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await exited(worker.child);
}
