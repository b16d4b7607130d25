/**
 * A stand-in for the shared executor (src/search/plan/, PLAN50.md) until it lands: the same
 * interface, run as a ladder. Each strategy in order that applies runs its statement and reads it;
 * the first done step's rows are the answer. `force` runs the named strategy first whatever it
 * says, the ladder going on after it; `disabled` strategies never run.
 */
import type { Db, SqlQuery } from '../../../db/db.js';

export interface Progress<Row> {
  /** The rows the plan has so far (a window's matches that gave way). */
  found: Row[];
  /** The strategies run so far, in order. */
  tried: string[];
  /** Facts the last step read (a sample's counts). */
  facts: Record<string, number | null | undefined>;
}

export type Step<Row> = { done: true; rows: Row[] } | { done: false; rows: Row[]; facts?: Progress<Row>['facts'] };

export interface Strategy<I, Row> {
  readonly name: string;
  /** The query name the statement runs under (db.query's label). */
  readonly label: string;
  applies(input: I, so: Progress<Row>): boolean;
  cost(input: I, so: Progress<Row>): number;
  statement(input: I, so: Progress<Row>): SqlQuery;
  read(rows: Row[], input: I, so: Progress<Row>): Step<Row>;
}

export interface PlanOptions {
  force?: string;
  disabled?: ReadonlySet<string>;
}

export async function runPlan<I extends { db: Db }, Row extends object>(
  strategies: ReadonlyArray<Strategy<I, Row>>,
  input: I,
  opts: PlanOptions = {},
): Promise<Row[]> {
  const so: Progress<Row> = { found: [], tried: [], facts: {} };
  const forced = strategies.findIndex((s) => s.name === opts.force);
  for (const [i, s] of strategies.entries()) {
    if (i < forced || opts.disabled?.has(s.name)) continue;
    if (i !== forced && (!s.applies(input, so) || s.cost(input, so) === Infinity)) continue;
    const rows = await input.db.query<Row>(s.statement(input, so), s.label);
    const step = s.read(rows, input, so);
    so.tried.push(s.name);
    so.found = step.rows;
    if (step.done) return step.rows;
    so.facts = step.facts ?? {};
  }
  return so.found;
}
