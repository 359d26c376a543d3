import { Caller } from './caller';

/** Entries kept at most: about 300 bytes of token each, a few MB at the bound. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

interface Entry {
  caller: Caller;
  /** Epoch milliseconds after which the token must be verified again (and then reads as expired). */
  validUntil: number;
}

/**
 * Callers of tokens already verified, keyed by the raw token, each kept until the token's own expiry.
 * A client sends the same token with every request until it expires, and verifying its signature again
 * each time costs more CPU than the rest of a cached read; a map lookup by the exact string that was
 * verified cannot be fooled by a different token. Bounded, least recently used out first. Only
 * successes are kept: a rejected token is checked again each time, so nothing can poison the cache.
 */
export class VerifiedTokenCache {
  // A Map iterates in insertion order: re-inserting on each hit keeps the least recently used first.
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = VERIFIED_TOKEN_CACHE_SIZE,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get(token: string): Caller | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    if (this.now() >= entry.validUntil) return undefined;
    this.entries.set(token, entry);
    return entry.caller;
  }

  set(token: string, caller: Caller, validUntil: number): void {
    this.entries.delete(token);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    // Shared by every request that presents the token: frozen, so no request can change another's caller.
    Object.freeze(caller.roles);
    this.entries.set(token, { caller: Object.freeze(caller), validUntil });
  }

  get size(): number {
    return this.entries.size;
  }
}
