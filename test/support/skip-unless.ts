/**
 * `describe` when what the suite needs is there; otherwise the suite is skipped and says why on the run's
 * output (Jest lists skipped tests only when verbose), so a run without Redis shows what it did not test.
 */
export function describeIf(available: unknown, reason: string) {
  if (available) return describe;
  return (name: string, body: () => void) => {
    process.stdout.write(`skipped: ${name}: ${reason}\n`);
    describe.skip(name, body);
  };
}
