/**
 * A small Prometheus registry (text format 0.0.4): counters and histograms with labels. Enough
 * for request and tool-call metrics without a dependency. Label values are route templates and
 * codes, never raw paths, so cardinality stays bounded.
 */

export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

type Labels = Record<string, string>;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatLabels(labels: Labels, extra: Labels = {}): string {
  const all = { ...labels, ...extra };
  const parts = Object.entries(all).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** Series keyed by their label values, in first-seen order. */
class Family<T> {
  private readonly series = new Map<string, { labels: Labels; value: T }>();
  constructor(private readonly init: () => T) {}

  get(labels: Labels): T {
    const key = JSON.stringify(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, value: this.init() };
      this.series.set(key, entry);
    }
    return entry.value;
  }

  entries() {
    return [...this.series.values()];
  }
}

export class Counter {
  private readonly family = new Family(() => ({ n: 0 }));
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels, by = 1): void {
    this.family.get(labels).n += by;
  }

  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...this.family.entries().map(({ labels, value }) => `${this.name}${formatLabels(labels)} ${value.n}`),
    ];
  }
}

export class Histogram {
  private readonly family: Family<{ counts: number[]; sum: number; count: number }>;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {
    this.family = new Family(() => ({ counts: buckets.map(() => 0), sum: 0, count: 0 }));
  }

  observe(labels: Labels, value: number): void {
    const series = this.family.get(labels);
    this.buckets.forEach((le, i) => {
      if (value <= le) series.counts[i] = (series.counts[i] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, value } of this.family.entries()) {
      this.buckets.forEach((le, i) =>
        lines.push(`${this.name}_bucket${formatLabels(labels, { le: String(le) })} ${value.counts[i] ?? 0}`),
      );
      lines.push(`${this.name}_bucket${formatLabels(labels, { le: '+Inf' })} ${value.count}`);
      lines.push(`${this.name}_sum${formatLabels(labels)} ${value.sum}`);
      lines.push(`${this.name}_count${formatLabels(labels)} ${value.count}`);
    }
    return lines;
  }
}

/** The HTTP server's metrics. */
export interface Metrics {
  observeRequest(route: string, status: number, seconds: number): void;
  observeToolCall(tool: string, status: string, seconds: number): void;
  /** A route that failed, by error code (e.g. `query_timeout` apart from `backend_unavailable`, both 503). */
  observeRequestError(route: string, code: string): void;
  render(): string;
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export function createMetrics(): Metrics {
  const requests = new Counter('searchdesk_http_requests_total', 'HTTP requests by route and status.');
  const requestSeconds = new Histogram('searchdesk_http_request_duration_seconds', 'HTTP request latency by route and status.');
  const tools = new Counter('searchdesk_tool_calls_total', 'MCP tool calls by tool and status (ok or an error code).');
  const toolSeconds = new Histogram('searchdesk_tool_call_duration_seconds', 'MCP tool call latency by tool and status.');
  const errors = new Counter('searchdesk_http_errors_total', 'HTTP requests that failed, by route and error code.');
  return {
    observeRequest(route, status, seconds) {
      const labels = { route, status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    observeToolCall(tool, status, seconds) {
      const labels = { tool, status };
      tools.inc(labels);
      toolSeconds.observe(labels, seconds);
    },
    observeRequestError(route, code) {
      errors.inc({ route, code });
    },
    render: () =>
      [...requests.render(), ...requestSeconds.render(), ...errors.render(), ...tools.render(), ...toolSeconds.render()].join(
        '\n',
      ) + '\n',
  };
}
