/** What a bench run produces: filled by the data and run phases, read by the targets and the report. */
import type { IndexDef, IndexStatus } from '../perf/indexes.js';
import type { LatencyResult, ThroughputResult } from '../perf/measure.js';
import type { ToolName, Workload } from '../perf/workload.js';
import type { Args } from './args.js';
import type { TriagePhase } from './triage.js';

export interface Phase {
  label: string;
  engine: string;
  gin: boolean;
  /** The contact index layout the phase ran with. */
  contactLayout: 'combined' | 'per-column';
  byTool: Partial<Record<ToolName, LatencyResult>>;
  /** Median ms, core only, of a message search no message matches, on the phase's engine (messageFloor). */
  messageFloorMs?: number;
}

/** bench/overhead.js's figures (stdio cold start, per-call fixed cost of MCP over HTTP and REST). */
export interface Overhead {
  coldStartMs: number[];
  coldStartMedianMs: number;
  coldStartPeakRssMb: number;
  bareNodeMs: number;
  /** Fixed cost through the minimal client (bench/perf/rawhttp.ts): the server's own. */
  mcpOverheadMedianMs: number;
  restOverheadMedianMs: number;
  /** The same through fetch (undici): its own per-request work included. */
  mcpFetchOverheadMedianMs?: number;
  restFetchOverheadMedianMs?: number;
  /** GET /healthz round trip through each client: what the clients themselves take. */
  healthzRawMs?: number;
  healthzFetchMs?: number;
  rows: Array<{
    label: string;
    coreP50: number;
    mcpP50: number;
    mcpOverheadP50: number;
    restP50: number;
    restOverheadP50: number;
    mcpFetchOverheadP50?: number;
    restFetchOverheadP50?: number;
  }>;
}

export interface PostgresIndexes {
  /** searchdesk's own indexes (`db indexes`) and whether this run created them. */
  searchdesk: Array<{ name: string; action: string }>;
  /** Contact trigram indexes when the run started (put back at the end). */
  contactsAtStart: IndexDef[];
  /** Contact trigram indexes of the main phases. */
  contactsMain: IndexDef[];
  /** Seconds spent switching to the main layout and to the per-column one. */
  layoutSeconds: { main: number; perColumn?: number };
}

export interface Results {
  args: Args;
  startedAt: Date;
  seconds: number;
  machine: Record<string, string>;
  workload: Workload;
  indexes: Record<string, IndexStatus | string>;
  pgIndexes: PostgresIndexes;
  /** The SDK client's stdio cold start (median of 5), when overhead.js was not run. */
  coldStart: number[];
  overhead?: Overhead;
  idleRssMb: number;
  phases: Phase[];
  defaultVariant: Partial<Record<ToolName, { off: LatencyResult; on: LatencyResult }>>;
  throughput: ThroughputResult[];
  throughputEngine: string;
  /** Peak RSS at concurrency 32 of this scale's previous report, when there was one. */
  previousPeakRssMb?: number;
  /** list_conversations and get_account beside the help desk's statements (issue 48). */
  triage?: TriagePhase;
  /** Target name → plan file. */
  plans: Record<string, string>;
  notes: string[];
}
