/**
 * Operational endpoints: liveness, readiness (Postgres and, when configured, the search engine),
 * and Prometheus metrics. Readiness names the part that failed, never how it failed.
 */
import type { Handler } from './context.js';
import { METRICS_CONTENT_TYPE } from './metrics.js';
import { sendJson } from './respond.js';

const CHECK_TIMEOUT_MS = 5_000;

export const handleHealthz: Handler = ({ res }) => {
  sendJson(res, 200, { status: 'ok' });
  return Promise.resolve();
};

/** Resolves to true when `check` answers within the timeout. */
async function probe(check: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export const handleReadyz: Handler = async ({ app, res, log }) => {
  const { db, engines } = app.deps;
  const parts: [string, () => Promise<void>][] = [['postgres', () => db.ping()]];
  if (engines.primary.name !== 'postgres') parts.push([engines.primary.name, () => engines.primary.check()]);
  const results = await Promise.all(parts.map(async ([name, check]) => [name, await probe(check)] as const));
  const checks = Object.fromEntries(results.map(([name, ok]) => [name, ok ? 'ok' : 'unavailable']));
  const ready = results.every(([, ok]) => ok);
  if (!ready) log.warn({ event: 'not_ready', checks }, 'readiness check failed');
  sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', checks });
};

export const handleMetrics: Handler = async ({ res, metrics }) => {
  const text = await metrics.render();
  res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
};
