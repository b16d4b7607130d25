/**
 * Deterministic randomness inside Postgres without session state: every value is
 * `hashint8extended(row key, stream seed + salt)`, a pure function of the seed, the account, the
 * table, the row and the column. Rows can therefore be generated in chunks, in any order and on
 * several connections at once, and still come out identical — which `setseed()` + `random()`
 * cannot promise. Only integer and basic float arithmetic is used (no exp/ln/pow, whose last bits
 * depend on the platform's libm), so the same seed gives the same rows on any Postgres ≥ 11.
 */
import type { SqlParams } from '../../src/db/db.js';

export type Stream = 'contacts' | 'conversations' | 'messages' | 'articles';
const STREAM_NUMBER: Record<Stream, bigint> = { contacts: 1n, conversations: 2n, messages: 3n, articles: 4n };

export const MAX_SEED = 2 ** 31 - 1;
/** Account indexes must fit between the seed's bits and the stream's. */
export const MAX_ACCOUNTS = 4_096;

/** The 64-bit hash seed of one (seed, account, table) stream; salts below 2^16 keep streams apart. */
export function streamSeed(seed: number, accountIndex: number, stream: Stream): string {
  return ((BigInt(seed) << 32n) | (BigInt(accountIndex) << 20n) | (STREAM_NUMBER[stream] << 16n)).toString();
}

/** A validated integer as an SQL literal (for counts and ids we computed, never for caller text). */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${n}`);
  return String(n);
}

/** The number of octaves [2^b, 2^(b+1)) that start at or below `size`. */
function octaves(size: number): number {
  let n = 0;
  while (2 ** n <= size) n++;
  return n;
}

/** SQL expressions drawing deterministic pseudo-random values for one stream of one statement. */
export class RowRandom {
  private readonly seedRef: string;

  constructor(p: SqlParams, seed: number, accountIndex: number, stream: Stream) {
    this.seedRef = p.add(streamSeed(seed, accountIndex, stream));
  }

  /** Any of 2^64 bigint values. */
  hash(key: string, salt: number): string {
    return `hashint8extended(${key}, ${this.seedRef}::bigint + ${int(salt)})`;
  }

  /** A non-negative 31-bit bigint. */
  bits(key: string, salt: number): string {
    return `(${this.hash(key, salt)} & 2147483647)`;
  }

  /** A float8 in [0, 1). */
  unit(key: string, salt: number): string {
    return `(${this.bits(key, salt)}::float8 / 2147483648.0)`;
  }

  /** An integer in [0, n), uniform. */
  below(key: string, salt: number, n: number | string): string {
    return `(${this.bits(key, salt)} % (${typeof n === 'number' ? int(n) : n}))::int`;
  }

  /** An integer in [0, n), small values more likely (density −ln x: the first tenth gets a third). */
  skewedBelow(key: string, salt: number, n: number): string {
    return `floor(${int(n)} * ${this.unit(key, salt)} * ${this.unit(key, salt + 1)})::int`;
  }

  /**
   * A 1-based rank in [1, size] with P(rank) ≈ 1/rank (Zipf, s = 1): an octave [2^b, 2^(b+1)) is
   * chosen uniformly, then a rank inside it. Integer arithmetic only.
   */
  zipf(key: string, salt: number, size: number): string {
    const lo = `(1::bigint << ${this.below(key, salt, octaves(size))})`;
    return `(${lo} + ${this.bits(key, salt + 1)} % least(${lo}, ${int(size + 1)} - ${lo}))::int`;
  }

  /** `n` decimal digits as text, zero-padded. */
  digits(key: string, salt: number, n: number): string {
    return `lpad(((${this.hash(key, salt)} & 9223372036854775807) % ${int(10 ** n)})::text, ${int(n)}, '0')`;
  }
}
