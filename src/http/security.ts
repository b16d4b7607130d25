/**
 * Host and Origin checks (contract §6) against DNS rebinding and cross-site requests, and the CORS
 * headers that let an allowed browser origin read responses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]']);

/** `::1` → `[::1]`: the form a hostname takes in a Host header or URL. */
function bracketIpv6(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Hostnames accepted in the Host header (any port): loopback names, plus the configured bind host
 * when it names one interface (a wildcard bind says nothing about the name clients use).
 */
export function allowedHosts(config: Pick<Config, 'host' | 'allowedHosts'>): string[] {
  const hosts = [...LOOPBACK_HOSTS, ...config.allowedHosts.map(bracketIpv6)];
  const bind = bracketIpv6(config.host.trim().toLowerCase());
  if (bind && !WILDCARD_BINDS.has(bind) && !hosts.includes(bind)) hosts.push(bind);
  return hosts;
}

/** The hostname of a Host header value, lower-cased; undefined when it is not a valid host. */
function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    const url = new URL(`http://${hostHeader}`);
    return url.username || url.password || url.pathname !== '/' ? undefined : url.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function isHostAllowed(hostHeader: string | undefined, hosts: readonly string[]): boolean {
  const hostname = hostnameOf(hostHeader);
  return hostname !== undefined && hosts.includes(hostname);
}

function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Origins accepted besides loopback ones: SEARCHDESK_ALLOWED_ORIGINS, normalised. */
export function allowedOrigins(config: Pick<Config, 'allowedOrigins'>): Set<string> {
  return new Set(config.allowedOrigins.map(originOf).filter((o): o is string => o !== undefined));
}

/** A request without Origin is not a browser's cross-site request and passes. */
export function isOriginAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (origin === undefined) return true;
  const normalised = originOf(origin);
  if (normalised === undefined) return false; // includes "null"
  return allowed.has(normalised) || LOOPBACK_HOSTS.includes(new URL(normalised).hostname);
}

const ALLOW_HEADERS =
  'content-type, accept, authorization, api_access_token, mcp-protocol-version, mcp-session-id, last-event-id';

/** CORS response headers for an allowed Origin; `preflight` adds the OPTIONS answers. */
export function setCorsHeaders(req: IncomingMessage, res: ServerResponse, preflight: boolean): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('vary', 'Origin');
  res.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, x-request-id');
  if (preflight) {
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    res.setHeader('access-control-allow-headers', ALLOW_HEADERS);
    res.setHeader('access-control-max-age', '600');
  }
}
