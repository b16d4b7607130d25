/**
 * Rate limiting of REST and /mcp (README, Rate limit), on rate-limiter-flexible's in-memory fixed
 * windows of one minute, with two kinds of bucket:
 * - a token's (its SHA-256: the limiter never holds a raw token), SEARCHDESK_RATE_LIMIT_PER_MINUTE;
 * - the client IP address's, SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE, for every request that
 *   names no user: without a token, or with one that does not resolve to a user (unknown, a bot's
 *   or an app's), so guessing tokens is limited like asking without one.
 *
 * Whether a token names a user is only known once Postgres has answered, and a guess that is over
 * its IP's budget must not cost a lookup. So a token the limiter has not seen resolve is counted
 * against the IP as well as against itself before the request runs (so an IP gets at most its
 * budget of lookups of tokens that name no user a minute, however many requests run at once), and
 * that IP point is given back when the token turns out to name a user (`settle`). A token seen
 * resolving within KNOWN_USER_TTL_MS is counted against itself only: a user's own limit does not
 * depend on who shares its address (one not seen lately, from an IP over its budget, waits like a
 * guess: telling them apart would take the lookup).
 * Probes and /metrics are never limited (src/http/server.ts decides which routes).
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { SearchError, type SearchErrorCode } from '../errors.js';
import type { Metrics } from './metrics.js';
import { sendJson, sendJsonRpcError } from './respond.js';

const WINDOW_SECONDS = 60;
/** How long a token that resolved to a user is counted against itself only (refreshed by each use). */
export const KNOWN_USER_TTL_MS = 10 * 60_000;
const MAX_KNOWN_USERS = 10_000;

/** JSON-RPC error code of a rate-limited /mcp request (implementation-defined server error range). */
export const RATE_LIMITED_RPC_CODE = -32029;

export type RateLimitVerdict = { allowed: true } | { allowed: false; key: 'token' | 'ip'; retryAfterSeconds: number };

const ALLOWED: RateLimitVerdict = { allowed: true };

/** The errors that say the token itself names no user (the ones that count against the IP). */
const TOKEN_REFUSALS: ReadonlySet<SearchErrorCode> = new Set(['missing_token', 'invalid_token', 'bot_token']);

/** One request's standing with the limiter, from its first count to what authentication said. */
export interface RateLimitTicket {
  readonly verdict: RateLimitVerdict;
  /** Counts `points` more requests against this request's buckets (the further messages of a batch). */
  charge(points: number): Promise<RateLimitVerdict>;
  /**
   * What authentication made of the token: `identified` when it named a user; otherwise `error`,
   * the refusal if there was one (a missing, unknown or bot token counts against the IP; anything
   * else, such as Postgres not answering, leaves the counts as they are). The first call counts.
   */
  settle(identified: boolean, error?: unknown): void;
}

export interface RateLimiter {
  /** Counts a request with this token (undefined: none) from this address. */
  admit(token: string | undefined, ip: string): Promise<RateLimitTicket>;
}

function limiter(perMinute: number): RateLimiterMemory | undefined {
  return perMinute > 0 ? new RateLimiterMemory({ points: perMinute, duration: WINDOW_SECONDS }) : undefined;
}

async function consume(bucket: RateLimiterMemory, id: string, points: number, key: 'token' | 'ip'): Promise<RateLimitVerdict> {
  try {
    await bucket.consume(id, points);
    return ALLOWED;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    return { allowed: false, key, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
  }
}

/** Hashes of tokens that resolved to a user lately; bounded, the oldest goes first. */
class KnownUsers {
  private readonly until = new Map<string, number>();

  has(hash: string): boolean {
    const expires = this.until.get(hash);
    if (expires === undefined) return false;
    if (performance.now() < expires) return true;
    this.until.delete(hash);
    return false;
  }

  remember(hash: string): void {
    this.until.delete(hash);
    if (this.until.size >= MAX_KNOWN_USERS) this.forget(this.until.keys().next().value);
    this.until.set(hash, performance.now() + KNOWN_USER_TTL_MS);
  }

  forget(hash: string | undefined): void {
    if (hash !== undefined) this.until.delete(hash);
  }
}

export function createRateLimiter(limits: Config['rateLimit']): RateLimiter {
  const byToken = limiter(limits.perToken);
  const byIp = limiter(limits.anonymousPerIp);
  const users = new KnownUsers();

  return {
    async admit(token, ip) {
      const hash = token === undefined ? undefined : createHash('sha256').update(token).digest('base64url');
      /** IP points this request holds; undefined while it is counted against its token only. */
      let ipPoints: number | undefined = hash !== undefined && users.has(hash) ? undefined : 0;
      let settled = false;

      const charge = async (points: number): Promise<RateLimitVerdict> => {
        if (ipPoints !== undefined && byIp) {
          ipPoints += points;
          const verdict = await consume(byIp, ip, points, 'ip');
          // Over the IP's budget: the token is not looked at, so a guess costs no lookup.
          if (!verdict.allowed) return verdict;
        }
        return hash !== undefined && byToken ? consume(byToken, hash, points, 'token') : ALLOWED;
      };

      const settle = (identified: boolean, error?: unknown): void => {
        if (settled || hash === undefined) return;
        settled = true;
        if (identified) {
          users.remember(hash);
          if (ipPoints && byIp) void giveBack(byIp, ip, ipPoints);
          ipPoints = undefined;
        } else if (error instanceof SearchError && TOKEN_REFUSALS.has(error.code)) {
          users.forget(hash);
          if (ipPoints === undefined && byIp) void byIp.penalty(ip, 1);
          ipPoints ??= 1;
        }
      };

      return { verdict: await charge(1), charge, settle };
    },
  };
}

/** Returns points to an IP's window, never more than it holds (the window may have ended since). */
async function giveBack(bucket: RateLimiterMemory, ip: string, points: number): Promise<void> {
  const held = (await bucket.get(ip))?.consumedPoints ?? 0;
  if (held > 0) await bucket.reward(ip, Math.min(held, points));
}

/**
 * Answers 429 with Retry-After: in the REST error shape, or as a JSON-RPC error on /mcp; the
 * request's log line and /metrics say which bucket refused it.
 */
export function answerRateLimited(
  ctx: { res: ServerResponse; metrics: Metrics; facts: Record<string, unknown> },
  route: string,
  verdict: RateLimitVerdict & { allowed: false },
): void {
  const seconds = verdict.retryAfterSeconds;
  const message = `Too many requests: retry after ${seconds} second${seconds === 1 ? '' : 's'}`;
  const headers = { 'retry-after': String(seconds) };
  ctx.facts.rate_limited = verdict.key;
  ctx.metrics.observeRateLimited(route, verdict.key);
  if (route === '/mcp') sendJsonRpcError(ctx.res, 429, RATE_LIMITED_RPC_CODE, message, headers);
  else sendJson(ctx.res, 429, { error: message }, headers);
}
