/**
 * The machine-readable results of the benches: one JSON file per tool, scale and data shape in
 * bench/results/ (`<tool>-<scale>-<shape>.json`; bench:core adds its variant and engine), written by `npm run
 * bench`, `npm run bench:core` and `npm run bench:triage`, read by `npm run bench:results`, which
 * renders bench/RESULTS.md from them and bench/DECISIONS.md. A new run of the same key replaces its
 * file (bench:core replaces only the tools it ran); earlier figures stay in git history.
 *
 * Numbers are milliseconds unless named otherwise; speed-ups are help desk ÷ searchdesk. A figure
 * that was not measured is left out (or null in a fixed-length list), never written as 0.
 */

export const RECORD_SCHEMA = 1;

/** The data shape of the bench database (`npm run bench:data -- --shape`); the generator's original is "default". */
export const DEFAULT_SHAPE = 'default';

/** The data shape a run names (`--shape`, issue 50); runs before it measured the generator's only shape. */
export const shapeOf = (args: object): string => (args as { shape?: string }).shape ?? DEFAULT_SHAPE;

export type BenchTool = 'bench' | 'core' | 'triage';

/** `uptime`'s load averages (1, 5, 15 min) at the start and the end of a run. */
export interface Load {
  start?: [number, number, number];
  end?: [number, number, number];
  /** What was recorded instead of the two readings (an imported figure: "4.4–6.7 during every run"). */
  note?: string;
}

/** When, on what code and on how busy a machine a figure was taken. */
export interface Provenance {
  /** ISO time the run started. */
  date: string;
  /** Short hash of the code measured (with `+` when the work tree had changes). */
  commit: string;
  load: Load;
  /** How the figures got here: the command, or "imported from RESULTS.md at <commit>". */
  source: string;
}

interface RecordBase extends Provenance {
  schema: typeof RECORD_SCHEMA;
  tool: BenchTool;
  /** S, M or L (bench/README.md, "What it generates"). */
  scale: string;
  shape: string;
  command?: string;
  /** The bench database, password removed. */
  database?: string;
  /** CPU, Node, Postgres, engines, the server's role: what the run's machine table showed. */
  machine?: Record<string, string>;
  notes?: string[];
}

/** p50 / p95 (and more) of one side, ms. */
export interface Latency {
  p50: number;
  p95: number;
  p99?: number;
  max?: number;
}

export interface Target {
  name: string;
  limit: number;
  unit: 'ms' | 'MB';
  /** null: not measured, or `timedOut`. */
  measured: number | null;
  /** The measured query ran into the statement timeout (a miss without a figure). */
  timedOut?: boolean;
}

/** One row of "searchdesk vs the help desk's own SQL" (index-backed, and the default variant where measured). */
export interface ToolRow {
  /** The tool, with its message engine for search_messages and search_all: "search_all (Elasticsearch)". */
  tool: string;
  queries: number;
  helpdesk: Latency;
  indexBacked: Latency & { speedup: number; speedupRaw?: number; speedupCore?: number };
  default?: Latency & { speedup: number };
}

export interface GeoMeanRow {
  /** "Postgres message engine", "Elasticsearch messages". */
  messages: string;
  default?: number;
  indexBacked: number;
  raw?: number;
  core?: number;
}

/** One kind of query of one tool row (index-backed). */
export interface KindRow {
  tool: string;
  kind: string;
  queries: number;
  helpdeskMs: number;
  searchdeskMs: number;
  speedup: number;
  speedupRaw?: number;
  speedupCore?: number;
  worstCore?: number;
}

export interface LatencyRow extends Latency {
  tool: string;
  phase: string;
  calls: number;
  direct: Latency;
  /** Median of (SDK callTool − direct), and of (one plain JSON-RPC POST − direct). */
  overheadSdk?: number;
  overheadServer?: number;
  errors: number;
}

export interface DefaultVariantRow {
  tool: string;
  queries: number;
  default: Latency;
  indexBacked: Latency;
  errors: number;
}

export interface ThroughputLevel {
  concurrency: number;
  callsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  peakRssMb: number;
}

export interface Overhead {
  coldStartMedianMs: number;
  coldStartSpawns: number;
  coldStartPeakRssMb?: number;
  bareNodeMs?: number;
  /** Fixed cost per call through the minimal client (the targets' figure), median. */
  mcpFixedMs?: number;
  restFixedMs?: number;
  mcpFixedFetchMs?: number;
  restFixedFetchMs?: number;
}

export interface ContactLayoutRow {
  tool: string;
  layout: string;
  searchdesk: Latency;
  helpdesk: Latency;
  speedup: number;
}

export interface BenchRecord extends RecordBase {
  tool: 'bench';
  /** Seconds per concurrency level of the throughput runs, queries per tool, calls per query. */
  settings?: { perTool?: number; reps?: number; duration?: number; defaultCap?: number };
  targets: Target[];
  tools: ToolRow[];
  geoMeans: GeoMeanRow[];
  /** A message search no message matches, core only, median ms, per engine. */
  floors: Record<string, number>;
  kinds: KindRow[];
  latency: LatencyRow[];
  defaultVariant: DefaultVariantRow[];
  throughput?: { engine: string; idleRssMb?: number; levels: ThroughputLevel[] };
  overhead?: Overhead;
  contactLayouts?: ContactLayoutRow[];
}

/** One tool of a bench:core run: its own provenance, since a run may cover only some tools. */
export interface CoreTool extends Provenance {
  tool: string;
  queries?: number;
  reps?: number;
  /** Geo-mean of the per-query speed-ups (help desk ÷ core); `runs` when several runs were averaged. */
  speedup: number;
  runs?: number[];
  worst?: number;
  /** The core's own time: geo-mean and median of the per-query medians, ms. */
  coreGeoMs?: number;
  coreP50Ms?: number;
  /** A message search no message matches on the run's engine, ms. */
  floorMs?: number;
  kinds?: Array<{ kind: string; queries: number; speedup?: number; worst?: number; speedupSql?: number; coreP50Ms?: number }>;
}

export interface CoreRecord extends RecordBase {
  tool: 'core';
  /** "index-backed" (search_with_gin on) or "default" (`--default`). */
  variant: string;
  /** "Postgres engine" or "Elasticsearch": which engine answered the messages. */
  engine: string;
  tools: CoreTool[];
}

/** One combination of the triage sample: p50 / p95 per side, as [p50, p95]. */
export interface TriageRow {
  role: string;
  combination: string;
  mcp?: [number, number];
  core: [number, number];
  helpdesk?: [number, number];
  /** help desk ÷ core, p50. */
  ratio?: number;
  rows?: number;
  allCount?: number;
}

export interface TriageRecord extends RecordBase {
  tool: 'triage';
  rows: TriageRow[];
}

export type AnyRecord = BenchRecord | CoreRecord | TriageRecord;

/** The file name of a record: `<tool>-<scale>-<shape>`, and for bench:core `-<variant>-<engine>` ("core-M-default-index-backed-postgres"). */
export function recordKey(r: Pick<AnyRecord, 'tool' | 'scale' | 'shape'> & { variant?: string; engine?: string }): string {
  const engine = (r.engine ?? '')
    .toLowerCase()
    .replace(/ engine$/, '')
    .replace(/\W+/g, '-');
  return [r.tool, r.scale, r.shape, ...(r.tool === 'core' ? [r.variant ?? 'index-backed', engine || 'postgres'] : [])].join('-');
}
