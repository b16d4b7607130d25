/**
 * The HTTP server's Prometheus metrics, on prom-client: requests, errors and tool calls by route
 * or tool; the process, GC and event-loop metrics operators expect (prom-client's defaults);
 * the Postgres pool; search-engine fallbacks; rate-limited requests. Label values are route
 * templates, tool names and codes, never raw paths or tokens, so cardinality stays bounded.
 * Loaded only with the HTTP server (stdio never loads prom-client).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/db.js';
import { onEngineFallback } from '../events.js';

export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The HTTP server's metrics. */
export interface Metrics {
  observeRequest(route: string, status: number, seconds: number): void;
  observeToolCall(tool: string, status: string, seconds: number): void;
  /** A route that failed, by error code (e.g. `query_timeout` apart from `backend_unavailable`, both 503). */
  observeRequestError(route: string, code: string): void;
  /** A request refused with 429, by what it was counted against (`token` or anonymous `ip`). */
  observeRateLimited(route: string, by: 'token' | 'ip'): void;
  /** The exposition text (format 0.0.4). */
  render(): Promise<string>;
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsOptions {
  /** The Postgres pool's state, read at each scrape (absent on the embedded database). */
  poolStats?: () => PoolStats;
}

let processRegistry: Registry | undefined;

/**
 * Facts of the process rather than of one server, registered once per process: prom-client's
 * default metrics (CPU, memory, handles, GC, event-loop lag) and search-engine fallbacks.
 */
function processMetrics(): Registry {
  if (processRegistry) return processRegistry;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const fallbacks = new Counter({
    name: 'searchdesk_engine_fallbacks_total',
    help: 'Message searches answered by Postgres because the search engine failed (reason error) or timed out (reason timeout).',
    labelNames: ['engine', 'reason'],
    registers: [registry],
  });
  onEngineFallback((e) => fallbacks.inc({ engine: e.engine, reason: e.reason }));
  processRegistry = registry;
  return registry;
}

function poolGauges(registry: Registry, poolStats: () => PoolStats): void {
  new Gauge({
    name: 'searchdesk_pg_pool_connections',
    help: 'Open Postgres connections of the pools, by state.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = poolStats();
      this.set({ state: 'busy' }, s.total - s.idle);
      this.set({ state: 'idle' }, s.idle);
    },
  });
  new Gauge({
    name: 'searchdesk_pg_pool_waiting',
    help: 'Queries waiting for a free Postgres connection.',
    registers: [registry],
    collect() {
      this.set(poolStats().waiting);
    },
  });
  new Gauge({
    name: 'searchdesk_pg_pool_max_connections',
    help: 'Most Postgres connections searchdesk may open: SEARCHDESK_PG_POOL_SIZE in each of its pools.',
    registers: [registry],
    collect() {
      this.set(poolStats().max);
    },
  });
}

/** One server's HTTP requests: count and latency by route and status, failures by code, 429s by key. */
function requestMetrics(registers: Registry[]) {
  return {
    count: new Counter({
      name: 'searchdesk_http_requests_total',
      help: 'HTTP requests by route and status.',
      labelNames: ['route', 'status'],
      registers,
    }),
    seconds: new Histogram({
      name: 'searchdesk_http_request_duration_seconds',
      help: 'HTTP request latency by route and status.',
      labelNames: ['route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    errors: new Counter({
      name: 'searchdesk_http_errors_total',
      help: 'HTTP requests that failed, by route and error code.',
      labelNames: ['route', 'code'],
      registers,
    }),
    rateLimited: new Counter({
      name: 'searchdesk_http_rate_limited_total',
      help: 'HTTP requests refused with 429 by the rate limit, by route and key (token, or ip for requests without a token).',
      labelNames: ['route', 'key'],
      registers,
    }),
  };
}

/** One server's MCP tool calls: count and latency by tool and status. */
function toolMetrics(registers: Registry[]) {
  return {
    count: new Counter({
      name: 'searchdesk_tool_calls_total',
      help: 'MCP tool calls by tool and status (ok or an error code).',
      labelNames: ['tool', 'status'],
      registers,
    }),
    seconds: new Histogram({
      name: 'searchdesk_tool_call_duration_seconds',
      help: 'MCP tool call latency by tool and status.',
      labelNames: ['tool', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
}

/** A server's metrics: its own registry (requests, tool calls, the pool), rendered with the process's. */
export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const shared = processMetrics();
  const registry = new Registry();
  const requests = requestMetrics([registry]);
  const tools = toolMetrics([registry]);
  if (opts.poolStats) poolGauges(registry, opts.poolStats);

  return {
    observeRequest(route, status, seconds) {
      const labels = { route, status: String(status) };
      requests.count.inc(labels);
      requests.seconds.observe(labels, seconds);
    },
    observeToolCall(tool, status, seconds) {
      const labels = { tool, status };
      tools.count.inc(labels);
      tools.seconds.observe(labels, seconds);
    },
    observeRequestError(route, code) {
      requests.errors.inc({ route, code });
    },
    observeRateLimited(route, by) {
      requests.rateLimited.inc({ route, key: by });
    },
    async render() {
      const [own, processWide] = await Promise.all([registry.metrics(), shared.metrics()]);
      return `${own}\n${processWide}`;
    },
  };
}
