/** Host/Origin rules and the metrics text format as pure functions. */
import { describe, expect, it } from 'vitest';
import { reportEngineFallback } from '../src/events.js';
import { createMetrics } from '../src/http/metrics.js';
import { allowedHosts, allowedOrigins, isHostAllowed, isOriginAllowed } from '../src/http/security.js';

describe('allowedHosts', () => {
  it('allows loopback names only when bound to a wildcard address', () => {
    for (const host of ['0.0.0.0', '::'])
      expect(allowedHosts({ host, allowedHosts: [] })).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it('adds the configured host when it names one interface', () => {
    expect(allowedHosts({ host: 'searchdesk.internal', allowedHosts: [] })).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'searchdesk.internal',
    ]);
    expect(allowedHosts({ host: 'fd00::1', allowedHosts: [] })).toContain('[fd00::1]');
    expect(allowedHosts({ host: '127.0.0.1', allowedHosts: [] })).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it('adds SEARCHDESK_ALLOWED_HOSTS (behind a proxy or in a container)', () => {
    expect(allowedHosts({ host: '0.0.0.0', allowedHosts: ['search.example.com', 'fd00::2'] })).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'search.example.com',
      '[fd00::2]',
    ]);
  });
});

describe('isHostAllowed', () => {
  const hosts = allowedHosts({ host: 'searchdesk.internal', allowedHosts: [] });

  it('accepts allowed names with or without a port, case-insensitively', () => {
    for (const h of ['localhost', 'localhost:3000', '127.0.0.1:1', '[::1]:3000', 'SearchDesk.Internal:8080']) {
      expect(isHostAllowed(h, hosts)).toBe(true);
    }
  });

  it('rejects other names, a missing Host and malformed values', () => {
    for (const h of [undefined, '', 'evil.example', 'localhost.evil.example', 'user@localhost', 'localhost/x', '[::1']) {
      expect(isHostAllowed(h, hosts)).toBe(false);
    }
  });
});

describe('isOriginAllowed', () => {
  const configured = allowedOrigins({ allowedOrigins: ['https://app.example.com/', 'not a url'] });

  it('passes a request without Origin (not a browser cross-site request)', () => {
    expect(isOriginAllowed(undefined, configured)).toBe(true);
  });

  it('accepts loopback origins and configured ones (normalised)', () => {
    for (const o of ['http://localhost:6274', 'https://127.0.0.1', 'http://[::1]:8080', 'https://app.example.com']) {
      expect(isOriginAllowed(o, configured)).toBe(true);
    }
  });

  it('rejects everything else, including "null" and non-http schemes', () => {
    for (const o of [
      'null',
      'https://evil.example',
      'https://app.example.com:444',
      'file://localhost',
      'http://localhost.evil.example',
    ]) {
      expect(isOriginAllowed(o, configured)).toBe(false);
    }
  });
});

describe('metrics text format', () => {
  it('exposes request, error and tool metrics in one document, label values escaped', async () => {
    const m = createMetrics();
    m.observeRequest('/mcp', 200, 0.01);
    m.observeToolCall('search_all', 'ok', 0.02);
    m.observeRequestError('a"b\\c\nd', 'query_timeout');
    const text = await m.render();
    expect(text).toContain('searchdesk_http_requests_total{route="/mcp",status="200"} 1');
    expect(text).toContain('searchdesk_tool_calls_total{tool="search_all",status="ok"} 1');
    expect(text).toContain('searchdesk_http_errors_total{route="a\\"b\\\\c\\nd",code="query_timeout"} 1');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('renders cumulative histogram buckets, sum and count', async () => {
    const m = createMetrics();
    for (const s of [0.004, 0.5, 20]) m.observeToolCall('search_all', 'ok', s);
    const lines = (await m.render()).split('\n').filter((l) => l.startsWith('searchdesk_tool_call_duration_seconds'));
    const bucket = (le: string) => lines.find((l) => l.includes(`le="${le}"`))?.split(' ')[1];
    expect([bucket('0.005'), bucket('0.25'), bucket('0.5'), bucket('10'), bucket('+Inf')]).toEqual(['1', '1', '2', '2', '3']);
    expect(lines).toContain('searchdesk_tool_call_duration_seconds_sum{tool="search_all",status="ok"} 20.504');
    expect(lines).toContain('searchdesk_tool_call_duration_seconds_count{tool="search_all",status="ok"} 3');
  });

  it('has the process, GC and event-loop metrics operators expect', async () => {
    const text = await createMetrics().render();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
      'searchdesk_engine_fallbacks_total',
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
  });

  it('reports the Postgres pool when there is one', async () => {
    const withPool = await createMetrics({ poolStats: () => ({ total: 4, idle: 1, waiting: 2, max: 10 }) }).render();
    expect(withPool).toContain('searchdesk_pg_pool_connections{state="busy"} 3');
    expect(withPool).toContain('searchdesk_pg_pool_connections{state="idle"} 1');
    expect(withPool).toContain('searchdesk_pg_pool_waiting 2');
    expect(withPool).toContain('searchdesk_pg_pool_max_connections 10');
    expect(await createMetrics().render()).not.toContain('searchdesk_pg_pool');
  });

  it('counts engine fallbacks by engine and reason, timeouts apart', async () => {
    const m = createMetrics();
    const before = await m.render();
    const count = (text: string, reason: string) =>
      Number(
        new RegExp(`^searchdesk_engine_fallbacks_total\\{engine="elasticsearch",reason="${reason}"\\} (\\d+)$`, 'm').exec(
          text,
        )?.[1] ?? 0,
      );
    const timeout = Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
    reportEngineFallback('elasticsearch', timeout);
    reportEngineFallback('elasticsearch', Object.assign(new Error('connect ECONNREFUSED'), { name: 'ConnectionError' }));
    reportEngineFallback('elasticsearch', timeout);
    const after = await m.render();
    expect(count(after, 'timeout') - count(before, 'timeout')).toBe(2);
    expect(count(after, 'error') - count(before, 'error')).toBe(1);
  });
});
