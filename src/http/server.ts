/**
 * The HTTP server (node:http, no framework): routing, Host/Origin checks, the rate limit, one log
 * line and one metrics observation per request, and the one error handler for everything a route
 * throws.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../app.js';
import type { Logger } from '../logger.js';
import { withAccessCache } from '../search/core.js';
import { toSearchError } from '../errors.js';
import { requestToken, type Handler, type RequestContext } from './context.js';
import { handleMcp } from './mcp.js';
import { createMetrics, type Metrics } from './metrics.js';
import { handleHealthz, handleMetrics, handleReadyz } from './ops.js';
import { answerRateLimited, createRateLimiter, type RateLimiter } from './rate-limit.js';
import { sendError, sendJson } from './respond.js';
import { matchRestRoute } from './rest.js';
import { allowedHosts, allowedOrigins, isHostAllowed, isOriginAllowed, setCorsHeaders } from './security.js';

interface Route {
  label: string;
  methods: readonly string[];
  handler: Handler;
  /**
   * Probes and scrapers address the server by whatever name or IP they use, and these answers
   * hold no account data, so they skip the Host check (not the Origin check) and the rate limit.
   */
  operational?: boolean;
}

const OPS_ROUTES: Record<string, Route> = {
  '/healthz': { label: '/healthz', methods: ['GET', 'HEAD'], handler: handleHealthz, operational: true },
  '/readyz': { label: '/readyz', methods: ['GET', 'HEAD'], handler: handleReadyz, operational: true },
  '/metrics': { label: '/metrics', methods: ['GET', 'HEAD'], handler: handleMetrics, operational: true },
  // GET/DELETE reach the handler, which answers 405 in JSON-RPC style: the server is stateless.
  '/mcp': { label: '/mcp', methods: ['POST', 'GET', 'DELETE'], handler: handleMcp },
};

function matchRoute(pathname: string): Route | undefined {
  const fixed = OPS_ROUTES[pathname];
  if (fixed) return fixed;
  const rest = matchRestRoute(pathname);
  return rest && { label: rest.label, methods: ['GET', 'HEAD'], handler: rest.handler };
}

export interface HttpServerOptions {
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * Counts the request against its token and/or its IP address unless the route is operational
 * (src/http/rate-limit.ts). Returns false once it has answered 429 with Retry-After.
 */
async function withinRateLimit(ctx: RequestContext, route: Route, limiter: RateLimiter): Promise<boolean> {
  if (route.operational) return true;
  ctx.limit = await limiter.admit(ctx.token, ctx.req.socket.remoteAddress ?? 'unknown');
  if (ctx.limit.verdict.allowed) return true;
  answerRateLimited(ctx, route.label, ctx.limit.verdict);
  return false;
}

/** Everything in front of the route: Host, Origin, CORS preflight, method. Returns false once answered. */
function admit(ctx: RequestContext, route: Route | undefined, hosts: string[], origins: Set<string>): route is Route {
  const { req, res } = ctx;
  if (!route?.operational && !isHostAllowed(req.headers.host, hosts)) {
    sendJson(res, 403, { error: 'Host not allowed' });
    return false;
  }
  if (!isOriginAllowed(req.headers.origin, origins)) {
    sendJson(res, 403, { error: 'Origin not allowed' });
    return false;
  }
  setCorsHeaders(req, res, req.method === 'OPTIONS');
  if (!route) {
    sendJson(res, 404, { error: 'Not found' });
    return false;
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return false;
  }
  if (!route.methods.includes(req.method ?? '')) {
    sendJson(res, 405, { error: 'Method not allowed' }, { allow: route.methods.join(', ') });
    return false;
  }
  return true;
}

/**
 * Creates the HTTP server for an app. Listening is the caller's business (see startHttpServer).
 * Caller checks go through a short-lived access cache (src/auth/cache.ts; README, Security).
 * Each server has its own rate limiter and request metrics.
 */
export function createHttpServer(app: App, opts: HttpServerOptions = {}): Server {
  const logger = opts.logger ?? app.deps.logger;
  const served: App = { ...app, deps: withAccessCache(app.deps) };
  const poolStats = app.deps.db.poolStats?.bind(app.deps.db);
  const metrics = opts.metrics ?? createMetrics({ poolStats });
  const limiter = createRateLimiter(app.config.rateLimit);
  const hosts = allowedHosts(app.config);
  const origins = allowedOrigins(app.config);

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = matchRoute(url.pathname);
    const label = route?.label ?? 'unmatched';
    const log = logger.child({ req_id: requestId, route: label });
    const ctx: RequestContext = { req, res, url, app: served, metrics, log, facts: {}, token: requestToken(req) };

    res.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      metrics.observeRequest(label, res.statusCode, seconds);
      log.info(
        { event: 'http_request', method: req.method, status: res.statusCode, ms: +(seconds * 1000).toFixed(1), ...ctx.facts },
        'request',
      );
    });
    if (!admit(ctx, route, hosts, origins)) return;
    const serve = async () => {
      if (await withinRateLimit(ctx, route, limiter)) await route.handler(ctx);
    };
    serve().catch((err: unknown) => {
      const code = toSearchError(err).code;
      ctx.facts.error = code;
      metrics.observeRequestError(label, code);
      sendError(res, err, log);
    });
  });
}

export interface RunningHttpServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then drops what is left. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on config.host:config.port and logs `{"event":"listening","url":…}` once bound. */
export async function startHttpServer(app: App, opts: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const logger = opts.logger ?? app.deps.logger;
  const server = createHttpServer(app, opts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(app.config.port, app.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info({ event: 'listening', url }, `HTTP server listening on ${url}`);
  return {
    server,
    url,
    close(graceMs = 5_000) {
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
