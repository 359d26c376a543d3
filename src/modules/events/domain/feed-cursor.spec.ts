import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';

describe('feed cursor', () => {
  it('gives back the sequence it encodes', () => {
    for (const sequence of [0, 1, 42, Number.MAX_SAFE_INTEGER]) {
      expect(decodeFeedCursor(encodeFeedCursor(sequence))).toBe(sequence);
    }
  });

  it('refuses what the service did not issue', () => {
    for (const cursor of [
      '',
      'abc',
      Buffer.from('seq:-1').toString('base64url'),
      Buffer.from('seq:01').toString('base64url'),
      Buffer.from('seq:99999999999999999').toString('base64url'),
      Buffer.from('seq:1 ').toString('base64url'),
    ]) {
      expect(decodeFeedCursor(cursor)).toBeUndefined();
    }
  });
});
