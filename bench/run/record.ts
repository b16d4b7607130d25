/**
 * The record phase of `npm run bench`: the run's figures as bench/results/bench-<scale>-<shape>.json
 * (bench/record/types.ts), the same numbers the Markdown report shows, rounded as it shows them.
 */
import { RECORD_SCHEMA, shapeOf, type BenchRecord, type Latency, type Load } from '../record/types.js';
import { median, type Summary } from '../perf/stats.js';
import { redact } from './args.js';
import { geoFigures, geoMean, helpdeskPool, kindFigures, side, sideRows } from './report.js';
import type { Results } from './results.js';
import { PER_COLUMN_PHASE } from './runs.js';
import { targets } from './targets.js';

const PG = 'Postgres engine';

/** A figure as the report prints it (three significant digits, two decimals under 10); undefined when not measured. */
export function rounded(v: number | undefined): number | undefined {
  if (v === undefined || !Number.isFinite(v)) return undefined;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return Number(v.toFixed(digits));
}
const r3 = (v: number) => rounded(v) ?? Number.NaN;
const lat = (s: Summary): Latency => ({ p50: r3(s.p50), p95: r3(s.p95), p99: rounded(s.p99), max: rounded(s.max) });
const p5095 = (s: Summary): Latency => ({ p50: r3(s.p50), p95: r3(s.p95) });

function sideBySide(r: Results): Pick<BenchRecord, 'tools' | 'geoMeans' | 'kinds'> {
  const hd = helpdeskPool(r);
  if (hd.size === 0) return { tools: [], geoMeans: [], kinds: [] };
  const rows = sideRows(r, hd);
  const speedup = (m: Map<unknown, number> | undefined) => (m && m.size > 0 ? rounded(geoMean([...m.values()])) : undefined);
  return {
    tools: rows.map((x) => ({
      tool: x.label,
      queries: x.queries,
      helpdesk: p5095(x.hd),
      indexBacked: {
        ...p5095(x.on?.summary ?? x.hd),
        speedup: speedup(x.on?.speedups) ?? Number.NaN,
        speedupRaw: speedup(x.on?.rawSpeedups),
        speedupCore: speedup(x.on?.coreSpeedups),
      },
      ...(x.def ? { default: { ...p5095(x.def.summary), speedup: speedup(x.def.speedups) ?? Number.NaN } } : {}),
    })),
    geoMeans: geoFigures(r, rows).map((g) => ({
      messages: g.messages,
      default: rounded(g.default),
      indexBacked: r3(g.indexBacked),
      raw: rounded(g.raw),
      core: rounded(g.core),
    })),
    kinds: kindFigures(rows, hd).map((k) => ({
      tool: k.tool,
      kind: k.kind,
      queries: k.queries,
      helpdeskMs: r3(k.helpdeskMs),
      searchdeskMs: r3(k.searchdeskMs),
      speedup: r3(k.speedup),
      speedupRaw: rounded(k.speedupRaw),
      speedupCore: rounded(k.speedupCore),
      worstCore: rounded(k.worstCore),
    })),
  };
}

function contactLayouts(r: Results): BenchRecord['contactLayouts'] {
  const main = r.phases.find((p) => p.label === PG);
  const perColumn = r.phases.find((p) => p.label === PER_COLUMN_PHASE);
  if (!main || !perColumn) return undefined;
  const rows: NonNullable<BenchRecord['contactLayouts']> = [];
  for (const tool of ['search_contacts', 'search_conversations'] as const)
    for (const [layout, p] of [
      ["combined (the help desk's)", main],
      ['per-column', perColumn],
    ] as const) {
      const res = p.byTool[tool];
      const sd = res && side(res, new Map(res.samples.map((s) => [s.query, s.helpdesk])));
      if (res && sd)
        rows.push({
          tool,
          layout,
          searchdesk: p5095(res.mcp),
          helpdesk: p5095(res.helpdesk),
          speedup: r3(geoMean([...sd.speedups.values()])),
        });
    }
  return rows;
}

function overhead(r: Results): BenchRecord['overhead'] {
  const o = r.overhead;
  if (!o) return { coldStartMedianMs: r3(median(r.coldStart)), coldStartSpawns: r.coldStart.length };
  return {
    coldStartMedianMs: r3(o.coldStartMedianMs),
    coldStartSpawns: o.coldStartMs.length,
    coldStartPeakRssMb: rounded(o.coldStartPeakRssMb),
    bareNodeMs: rounded(o.bareNodeMs),
    mcpFixedMs: rounded(o.mcpOverheadMedianMs),
    restFixedMs: rounded(o.restOverheadMedianMs),
    mcpFixedFetchMs: rounded(o.mcpFetchOverheadMedianMs),
    restFixedFetchMs: rounded(o.restFetchOverheadMedianMs),
  };
}

/** Latency per tool and phase, the default variant beside the index-backed one, and the throughput levels. */
function latencyFigures(r: Results): Pick<BenchRecord, 'latency' | 'defaultVariant' | 'throughput'> {
  return {
    latency: r.phases.flatMap((p) =>
      Object.entries(p.byTool).map(([tool, res]) => ({
        tool,
        phase: p.label,
        calls: res.mcp.n,
        ...lat(res.mcp),
        direct: p5095(res.direct),
        overheadSdk: rounded(median(res.overheads)),
        overheadServer: rounded(median(res.serverOverheads)),
        errors: res.errors.length,
      })),
    ),
    defaultVariant: Object.entries(r.defaultVariant).map(([tool, { off, on }]) => ({
      tool,
      queries: off.mcp.n,
      default: { ...p5095(off.mcp), max: rounded(off.mcp.max) },
      indexBacked: p5095(on.mcp),
      errors: off.errors.filter((e) => !e.startsWith('help desk SQL')).length,
    })),
    throughput: {
      engine: r.throughputEngine.replace(/ messages, index-backed$/, ''),
      idleRssMb: rounded(r.idleRssMb),
      levels: r.throughput.map((t) => ({
        concurrency: t.concurrency,
        callsPerSecond: Number(t.callsPerSecond.toFixed(1)),
        p50: r3(t.latency.p50),
        p95: r3(t.latency.p95),
        p99: r3(t.latency.p99),
        errors: t.errors,
        peakRssMb: r3(t.peakRssMb),
      })),
    },
  };
}

/** The run as its record; `commit` and `load` are read by the caller when the run starts and ends. */
export function benchRecord(r: Results, commit: string, load: Load): BenchRecord {
  const a = r.args;
  const machine = Object.fromEntries(Object.entries(r.machine).filter(([k]) => !k.startsWith('Load average')));
  return {
    schema: RECORD_SCHEMA,
    tool: 'bench',
    scale: a.scale,
    shape: shapeOf(a),
    date: r.startedAt.toISOString(),
    commit,
    load,
    source: 'npm run bench',
    command: `npm run bench -- ${a.argv.join(' ')}`,
    database: redact(a.databaseUrl),
    machine,
    ...(r.notes.length ? { notes: r.notes.slice(0, 10) } : {}),
    settings: {
      perTool: a.perTool,
      reps: a.reps,
      duration: a.duration,
      ...(a.defaultCap < a.perTool ? { defaultCap: a.defaultCap } : {}),
    },
    targets: targets(r).map((t) => ({
      name: t.name,
      limit: t.limit,
      unit: t.unit,
      measured: rounded(t.measured) ?? null,
      ...(t.measured === Number.POSITIVE_INFINITY ? { timedOut: true } : {}),
    })),
    ...sideBySide(r),
    floors: Object.fromEntries(
      r.phases.flatMap((p) => (p.messageFloorMs !== undefined ? [[p.label, r3(p.messageFloorMs)]] : [])),
    ),
    ...latencyFigures(r),
    overhead: overhead(r),
    contactLayouts: contactLayouts(r),
  };
}
