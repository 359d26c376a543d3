/**
 * A feed cursor: the last sequence a consumer has seen, base64url-encoded. Not signed: it reveals nothing
 * an admin cannot read in the feed, a changed one only moves the reader, and it must stay valid across
 * changes of the service's secrets. Valid while the events after it are retained.
 */
const PREFIX = 'seq:';
const SEQUENCE = /^seq:(0|[1-9][0-9]{0,17})$/;

export function encodeFeedCursor(sequence: number): string {
  return Buffer.from(`${PREFIX}${sequence}`).toString('base64url');
}

/** The sequence a cursor points after; undefined when it is none the service issued. */
export function decodeFeedCursor(cursor: string): number | undefined {
  const match = SEQUENCE.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return undefined;
  const sequence = Number(match[1]);
  return Number.isSafeInteger(sequence) ? sequence : undefined;
}
