const UNITS = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
] as const;

/** A byte count for people, in binary units: 1048576 → `1 MiB`, 1536 → `1.5 KiB`, 100 → `100 B`. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of UNITS) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} B`;
}
