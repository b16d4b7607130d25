/** A search plan: a list of strategies, small named objects run by one executor (executor.ts; docs/plans.md). */
import type { Db, SqlQuery } from '../../db/db.js';
import type { Logger } from '../../logger.js';

/** What tests and the bench may ask of a plan: a strategy to `force`, strategies and knobs `disabled` (the ablation). */
export type PlanOptions = { force?: string; disabled?: ReadonlySet<string> };
/** What the executor needs of a search's context. */
export type PlanContext = { db: Db; logger?: Logger; plan?: PlanOptions };
/** What earlier steps found: rows so far (a prefix of the plain statement's), strategies run, the last step's rows. */
export type Progress<Row> = { found: Row[]; tried: string[]; last: Row[] };
/** The result of one step: `done` when `rows` are the page, else a prefix the next step continues. */
export type Step<Row> = { done: boolean; rows: Row[] };
/** How a statement is planned (docs/plans.md, How the executor picks): for its values, once, or once per account. */
export type PlanCaching = 'no' | 'once' | 'oncePerAccount';

export interface Strategy<I, Row> {
  /** `resource.strategy`, e.g. `contacts.window`: what force, disable and the trace name. */
  readonly name: string;
  /** db.query's label for its statements (logs, bench, tests). */
  readonly label: string;
  applies(input: I, so: Progress<Row>): boolean;
  /** In cost units (costs.ts); Infinity: only when forced or nothing else applies. */
  cost(input: I, so: Progress<Row>): number;
  /** Default `no`. */
  caching?(input: I, so: Progress<Row>): PlanCaching;
  /** `inText`: row counts and account written in the text (caching not `no`). */
  statement(input: I, so: Progress<Row>, inText: boolean): SqlQuery;
  read(rows: Row[], input: I, so: Progress<Row>): Step<Row>;
}
