/** Shared pieces of the generating statements: lookup arrays, time anchors, the statement context. */
import { SqlParams, type SqlQuery } from '../../src/db/db.js';
import { RowRandom, int, type Stream } from './sql-random.js';
import type { AccountPlan } from './scale.js';
import type { Shape } from './shape.js';

const NAME_MAX_BYTES = 63;

/**
 * A lookup list as a `name[]` parameter. `name` is fixed-width, so `arr[i]` is O(1); a `text[]`
 * element lookup walks the array from the start (measured: ~20× slower for 20k words).
 */
function nameArray(p: SqlParams, values: readonly string[]): string {
  for (const v of values) {
    if (Buffer.byteLength(v) > NAME_MAX_BYTES) throw new Error(`lookup value longer than ${NAME_MAX_BYTES} bytes: ${v}`);
  }
  return `(${p.add(values)}::name[])`;
}

/** `arr[index]` as text (1-based index expression). */
export const at = (array: string, index: string) => `(${array}[${index}])::text`;

export const DAY_SECONDS = 86_400;
/** Contacts and articles go back a year; conversations and messages `days` days. */
export const LONG_WINDOW_DAYS = 365;

/** UTC `YYYY-MM-DD HH:MM:SS` (the text of a `timestamp without time zone`). */
export function sqlTimestamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** Everything one account's statements need. */
export interface StatementContext {
  plan: AccountPlan;
  seed: number;
  /** The anchor of every timestamp: data ends here and reaches `days` back. */
  now: Date;
  days: number;
  /** Which data shape to generate (shape.ts). */
  shape: Shape;
}

/** One statement being built: its parameters, its streams and the time anchor. */
export class Statement {
  readonly p = new SqlParams();
  private nowRef?: string;
  private readonly arrays = new Map<readonly unknown[], string>();

  constructor(readonly ctx: StatementContext) {}

  random(stream: Stream): RowRandom {
    return new RowRandom(this.p, this.ctx.seed, this.ctx.plan.index, stream);
  }

  /** A timestamp `seconds` (an SQL expression) after the start of a window of `days` days ending at `now`. */
  timeIn(days: number, seconds: string): string {
    this.nowRef ??= `${this.p.add(sqlTimestamp(this.ctx.now))}::timestamp`;
    return `(${this.nowRef} - interval '${int(days)} days' + (${seconds}) * interval '1 second')`;
  }

  /** A list of words as a `name[]` parameter (each list sent once per statement). */
  names(values: readonly string[]): string {
    return this.cached(values, () => nameArray(this.p, values));
  }

  ints(values: readonly number[]): string {
    return this.cached(values, () => `(${this.p.add(values)}::int[])`);
  }

  private cached(values: readonly unknown[], make: () => string): string {
    let ref = this.arrays.get(values);
    if (ref === undefined) {
      ref = make();
      this.arrays.set(values, ref);
    }
    return ref;
  }

  done(text: string): SqlQuery {
    return { text, values: this.p.values };
  }
}

/**
 * Seconds into a window of `windowSeconds` for row `i` of `count`: rows ascend in time like ids
 * in a real help desk, each with a random offset inside its own slot.
 */
export function ascendingSeconds(i: string, count: number, windowSeconds: number, unit: string): string {
  return `floor((${i} - 1 + ${unit}) * ${int(windowSeconds)}::float8 / ${int(count)})::bigint`;
}
