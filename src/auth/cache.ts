/**
 * A short-lived memo of the caller checks (contract §2), so a busy surface does not ask Postgres
 * who the caller is on every call. Only answers that let a caller in are kept, each for at most
 * `ttlMs` (default ACCESS_CACHE_TTL_MS): a revoked token, a removed membership, a suspended account
 * or a changed inbox membership takes effect within that bound. Refusals and failures (Postgres
 * down) are never kept, so they are re-checked on every call and a newly granted access works at once.
 */
import type { AccessContext, Caller } from './access.js';

/** The staleness bound of the caller checks (documented in the README, Security). */
export const ACCESS_CACHE_TTL_MS = 2_000;

const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expires: number;
}

/** A bounded map whose entries expire; the oldest entry goes first when full. */
class Expiring<T> {
  private readonly entries = new Map<string, Entry<T>>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.expires) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface AccessCacheOptions {
  /** How long an accepted answer is reused; 0 turns the cache off. */
  ttlMs?: number;
  /** Milliseconds of a monotonic clock (tests inject their own). */
  now?: () => number;
  maxEntries?: number;
}

export interface AccessCache {
  readonly ttlMs: number;
  caller(token: string): Caller | undefined;
  rememberCaller(token: string, caller: Caller): void;
  access(caller: Caller, accountId: number): AccessContext | undefined;
  rememberAccess(caller: Caller, access: AccessContext): void;
  clear(): void;
}

export function createAccessCache(opts: AccessCacheOptions = {}): AccessCache {
  const ttlMs = opts.ttlMs ?? ACCESS_CACHE_TTL_MS;
  const now = opts.now ?? (() => performance.now());
  const max = opts.maxEntries ?? MAX_ENTRIES;
  const callers = new Expiring<Caller>(ttlMs, now, max);
  const accesses = new Expiring<AccessContext>(ttlMs, now, max);
  const accessKey = (userId: number, accountId: number) => `${userId}:${accountId}`;
  return {
    ttlMs,
    caller: (token) => callers.get(token),
    rememberCaller: (token, caller) => callers.set(token, caller),
    access: (caller, accountId) => accesses.get(accessKey(caller.userId, accountId)),
    rememberAccess: (caller, access) => accesses.set(accessKey(caller.userId, access.accountId), access),
    clear() {
      callers.clear();
      accesses.clear();
    },
  };
}
