/** Host/Origin rules and the metrics text format as pure functions. */
import { describe, expect, it } from 'vitest';
import { Counter, createMetrics, Histogram } from '../src/http/metrics.js';
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
  it('renders counters with escaped label values', () => {
    const c = new Counter('x_total', 'help');
    c.inc({ route: 'a"b\\c\nd' }, 2);
    expect(c.render()).toEqual(['# HELP x_total help', '# TYPE x_total counter', 'x_total{route="a\\"b\\\\c\\nd"} 2']);
  });

  it('renders cumulative histogram buckets, sum and count', () => {
    const h = new Histogram('lat_seconds', 'help', [0.1, 1]);
    h.observe({ r: 'x' }, 0.05);
    h.observe({ r: 'x' }, 0.5);
    h.observe({ r: 'x' }, 5);
    expect(h.render().slice(2)).toEqual([
      'lat_seconds_bucket{r="x",le="0.1"} 1',
      'lat_seconds_bucket{r="x",le="1"} 2',
      'lat_seconds_bucket{r="x",le="+Inf"} 3',
      'lat_seconds_sum{r="x"} 5.55',
      'lat_seconds_count{r="x"} 3',
    ]);
  });

  it('exposes request and tool metrics in one document', () => {
    const m = createMetrics();
    m.observeRequest('/mcp', 200, 0.01);
    m.observeToolCall('search_all', 'ok', 0.02);
    const text = m.render();
    expect(text).toContain('searchdesk_http_requests_total{route="/mcp",status="200"} 1');
    expect(text).toContain('searchdesk_tool_calls_total{tool="search_all",status="ok"} 1');
    expect(text.endsWith('\n')).toBe(true);
  });
});
