/**
 * Waiting for a condition in a test, the one way: poll until it holds. No wait has a deadline of its own: a
 * test fails on what it observes, never on the clock, since load stretches every duration. A condition that
 * never comes is a hung test, ended by Jest's testTimeout (jest.config.js), which is sized as a guard against
 * hangs, not as a bound on speed. Where something shows that the condition can no longer come (the process
 * that should answer has exited), `failsWhen` says so and the wait fails at once, naming it.
 */
export interface WaitOptions {
  /** Why the condition can no longer come, or undefined while it still can. */
  failsWhen?: () => string | undefined;
  /** Between two polls. */
  intervalMs?: number;
}

/** Resolves with the first value `probe` gives other than undefined. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  { failsWhen, intervalMs = 20 }: WaitOptions = {},
): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const failure = failsWhen?.();
    if (failure !== undefined) throw new Error(`${what}: ${failure}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves once `condition` holds. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  options?: WaitOptions,
): Promise<void> {
  await eventually(what, async () => ((await condition()) ? true : undefined), options);
}

/** Resolves once `url` answers 200 (connection refused meanwhile is "not yet"). */
export async function answers200(url: string, options?: WaitOptions): Promise<void> {
  await until(
    `${url} to answer 200`,
    async () => {
      try {
        const response = await fetch(url);
        await response.body?.cancel();
        return response.status === 200;
      } catch {
        return false;
      }
    },
    { intervalMs: 200, ...options },
  );
}
