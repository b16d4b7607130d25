/**
 * A search plan is a list of strategies, each a small named object, that one executor runs
 * (executor.ts): every strategy returns the plain statement's rows in its order, or gives way
 * holding a prefix of them, so a choice among them decides speed only. docs/plans.md lists them.
 */
import type { Db, SqlQuery } from '../../db/db.js';
import type { Logger } from '../../logger.js';

/**
 * What tests and the bench may ask of a plan (SearchContext.plan), never a caller's input.
 * `force`: a strategy's name, run whenever it applies, whatever its cost. `disabled`: strategy
 * names never run, and knob names (costs.ts) set to their neutral value, for the ablation bench.
 */
export interface PlanOptions {
  force?: string;
  disabled?: ReadonlySet<string>;
}

/** What the executor needs of a search's context. */
export interface PlanContext {
  db: Db;
  logger?: Logger;
  plan?: PlanOptions;
}

/** What earlier steps of a plan found, for the strategies weighing the next one. */
export interface Progress<Row> {
  /** Rows found so far: a prefix of the plain statement's rows (a window that gave way). */
  found: Row[];
  /** Names of the strategies run so far, in order (one may run twice: a window and its rest). */
  tried: string[];
  /** Rows the last step's statement returned (what it added to `found`). */
  last: Row[];
}

/** The result of one step: `done` when `rows` are the page, else a prefix the next step continues. */
export interface Step<Row> {
  done: boolean;
  rows: Row[];
}

/**
 * How a step's statement is planned (SqlQuery.planOnce): `no`, for its values on every run;
 * `once`, its plan fixed by its text; `oncePerAccount`, its account and row counts written in its
 * text so the one plan is weighed for that account, the same statement with them as parameters
 * (statement(…, false)) serving as SqlQuery.anyAccount.
 */
export type PlanCaching = 'no' | 'once' | 'oncePerAccount';

export interface Strategy<I, Row> {
  /** `resource.strategy`, e.g. `contacts.window`: what force, disable and the trace name. */
  readonly name: string;
  /** The name its statements are run under (db.query's label: logs, bench, tests). */
  readonly label: string;
  /** Whether it can answer now, given what earlier steps found. */
  applies(input: I, so: Progress<Row>): boolean;
  /** Estimated cost in cost units (costs.ts); Infinity: only when forced or nothing else applies. */
  cost(input: I, so: Progress<Row>): number;
  /** How its statement is planned (default `no`). */
  caching?(input: I, so: Progress<Row>): PlanCaching;
  /** Its statement; `inText`: row counts and account written in the text (caching not `no`). */
  statement(input: I, so: Progress<Row>, inText: boolean): SqlQuery;
  /** What its rows mean: the page, or a prefix of it. */
  read(rows: Row[], input: I, so: Progress<Row>): Step<Row>;
}
