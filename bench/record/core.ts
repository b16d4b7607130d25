/**
 * A `npm run bench:core` run as its record (types.ts CoreRecord): per tool the geo-mean of the
 * per-query speed-ups, the worst, the core's own times, and the same per kind of query.
 */
import { median } from '../perf/stats.js';
import { currentCommit, loadNow } from './io.js';
import { RECORD_SCHEMA, type CoreRecord, type CoreTool, type Load } from './types.js';

/** One query of a run: help desk ÷ core, help desk ÷ the core's statements alone, the core's median ms. */
export interface CoreQuery {
  kind: string;
  speedup: number;
  speedupSql: number;
  coreMs: number;
}

export interface CoreToolRun {
  tool: string;
  queries: CoreQuery[];
  floorMs?: number;
}

const geo = (xs: number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
const round = (v: number) => Number(v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2));

function kinds(queries: CoreQuery[]): NonNullable<CoreTool['kinds']> {
  const byKind = new Map<string, CoreQuery[]>();
  for (const q of queries) byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), q]);
  return [...byKind].map(([kind, qs]) => ({
    kind,
    queries: qs.length,
    speedup: round(geo(qs.map((q) => q.speedup))),
    worst: round(Math.min(...qs.map((q) => q.speedup))),
    speedupSql: round(geo(qs.map((q) => q.speedupSql))),
    coreP50Ms: round(median(qs.map((q) => q.coreMs))),
  }));
}

export interface CoreRun {
  scale: string;
  shape: string;
  variant: string;
  engine: string;
  database: string;
  command: string;
  reps: number;
  /** ISO time and `uptime` load when the run started; the end is read here. */
  date: string;
  load: Load;
}

/** The record of a run over `tools` (tools without queries are left out). */
export function coreRecord(run: CoreRun, tools: CoreToolRun[]): CoreRecord {
  const commit = currentCommit();
  const load: Load = { ...run.load, end: loadNow() };
  const provenance = { date: run.date, commit, load, source: 'npm run bench:core' };
  return {
    schema: RECORD_SCHEMA,
    tool: 'core',
    scale: run.scale,
    shape: run.shape,
    variant: run.variant,
    engine: run.engine,
    ...provenance,
    command: run.command,
    database: run.database,
    tools: tools
      .filter((t) => t.queries.length > 0)
      .map((t) => ({
        tool: t.tool,
        ...provenance,
        queries: t.queries.length,
        reps: run.reps,
        speedup: round(geo(t.queries.map((q) => q.speedup))),
        worst: round(Math.min(...t.queries.map((q) => q.speedup))),
        coreGeoMs: round(geo(t.queries.map((q) => q.coreMs))),
        coreP50Ms: round(median(t.queries.map((q) => q.coreMs))),
        ...(t.floorMs !== undefined ? { floorMs: round(t.floorMs) } : {}),
        kinds: kinds(t.queries),
      })),
  };
}
