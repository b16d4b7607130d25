/**
 * Per-token rate limiting of REST and /mcp (README, Configuration), on rate-limiter-flexible's
 * in-memory fixed windows of one minute. A request with a token is counted against that token
 * (its SHA-256: the limiter never holds a raw token); one without against the client's IP
 * address. Probes and /metrics are never limited (src/http/server.ts decides which routes).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { headerValue } from './context.js';

const WINDOW_SECONDS = 60;

export type RateLimitVerdict = { allowed: true } | { allowed: false; key: 'token' | 'ip'; retryAfterSeconds: number };

export interface RateLimiter {
  check(req: IncomingMessage): Promise<RateLimitVerdict>;
}

/** The caller's token as the routes read it: `api_access_token`, else `Authorization: Bearer <token>`. */
function tokenOf(req: IncomingMessage): string | undefined {
  const direct = headerValue(req, 'api_access_token')?.trim();
  if (direct) return direct;
  return /^Bearer\s+(\S+)\s*$/i.exec(headerValue(req, 'authorization') ?? '')?.[1];
}

function limiter(perMinute: number): RateLimiterMemory | undefined {
  return perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS }) : undefined;
}

export function createRateLimiter(limits: Config['rateLimit']): RateLimiter {
  const byToken = limiter(limits.perToken);
  const byIp = limiter(limits.anonymousPerIp);
  return {
    async check(req) {
      const token = tokenOf(req);
      const key = token === undefined ? 'ip' : 'token';
      const active = token === undefined ? byIp : byToken;
      if (!active) return { allowed: true };
      const id =
        token === undefined ? (req.socket.remoteAddress ?? 'unknown') : createHash('sha256').update(token).digest('base64url');
      try {
        await active.consume(id);
        return { allowed: true };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        return { allowed: false, key, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
    },
  };
}
