/** A `npm run bench:triage` run as its record (types.ts TriageRecord). */
import { quantile } from '../perf/stats.js';
import { currentCommit, loadNow, writeRecord } from './io.js';
import { RECORD_SCHEMA, shapeOf, type Provenance, type TriageRow } from './types.js';

/** p50 / p95 as the bench prints them (one decimal); undefined for a side not measured. */
const p5095 = (xs: number[]): [number, number] | undefined =>
  xs.length ? [Number(quantile(xs, 0.5).toFixed(1)), Number(quantile(xs, 0.95).toFixed(1))] : undefined;

/** One printed row as a record row: each side's times, and for a list its size and count. */
export function triageRow(
  role: string,
  combination: string,
  t: { mcp: number[]; core: number[]; helpdesk?: number[] },
  list?: { rows: number; allCount: number },
): TriageRow {
  const helpdesk = p5095(t.helpdesk ?? []);
  const ratio = helpdesk ? Number((quantile(t.helpdesk ?? [], 0.5) / quantile(t.core, 0.5)).toFixed(1)) : undefined;
  return { role, combination, mcp: p5095(t.mcp), core: p5095(t.core) ?? [Number.NaN, Number.NaN], helpdesk, ratio, ...list };
}

/** When and on what the run started: call before measuring. */
export const triageStart = (): Omit<Provenance, 'source'> => ({
  date: new Date().toISOString(),
  commit: currentCommit(),
  load: { start: loadNow() },
});

/** Writes the run's record; `options` are the command line's values (scale, shape). */
export function writeTriageRecord(
  options: { scale?: string },
  start: Omit<Provenance, 'source'>,
  argv: string[],
  rows: TriageRow[],
  source = 'npm run bench:triage',
): string {
  return writeRecord({
    schema: RECORD_SCHEMA,
    tool: 'triage',
    scale: options.scale ?? 'L',
    shape: shapeOf(options),
    ...start,
    load: { ...start.load, end: loadNow() },
    source,
    command: `${source} -- ${argv.join(' ').replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@')}`,
    rows,
  });
}
