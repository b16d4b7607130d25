/**
 * MCP over stdio: stdout carries nothing but protocol (the logger writes to fd 2). The caller is
 * the user of SEARCHDESK_ACCESS_TOKEN, checked once at start (contract §2: a missing, unknown or
 * bot token refuses to start) and again on every call through the access cache, so a revoked
 * token stops working within its bound (ACCESS_CACHE_TTL_MS, 2 s).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Logger } from '../logger.js';
import { withAccessCache } from '../search/core.js';
import { createMcpServer } from './server.js';
import { startupToken } from './stdio-caller.js';

export interface StdioOptions {
  app: App;
  logger: Logger;
  /**
   * The token to use when none is configured. Unset ⇒ a missing token refuses to start.
   * (Hook for the embedded demo database, where stdio acts as the demo administrator.)
   */
  defaultToken?: string;
  /**
   * The startup token check, already under way (serve starts it before loading the MCP SDK so the
   * two overlap); started here when absent. Its app must be the one given here.
   */
  token?: Promise<string>;
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  stdout?: NodeJS.WritableStream;
}

export interface RunningStdio {
  /** Resolves when the client closes stdin or the server is closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;

/** Counts requests read from the transport and not yet answered. */
function trackInFlight(transport: StdioServerTransport): { drained(timeoutMs: number): Promise<void> } {
  let pending = 0;
  let onIdle: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) pending += 1;
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (('result' in message || 'error' in message) && pending > 0 && (pending -= 1) === 0) onIdle?.();
  };
  return {
    drained: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (pending === 0) return resolve();
        const timer = setTimeout(resolve, timeoutMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
  };
}

/** Starts the stdio MCP server; throws ConfigError when the token is refused. */
export async function startStdioServer(opts: StdioOptions): Promise<RunningStdio> {
  const { logger } = opts;
  const app: App = { ...opts.app, deps: withAccessCache(opts.app.deps) };
  const token = await (opts.token ?? startupToken({ app, logger, defaultToken: opts.defaultToken }));
  const server = createMcpServer({ deps: app.deps, config: app.config, logger, token, version: app.version });
  const stdin = opts.stdin ?? process.stdin;
  const transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    (opts.stdout ?? process.stdout) as typeof process.stdout,
  );
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  server.onclose = () => resolveClosed();
  server.onerror = (err) => logger.warn({ event: 'mcp_transport_error', message: err.message }, 'stdio transport error');
  await server.connect(transport);
  const inFlight = trackInFlight(transport);
  // The SDK transport does not notice the client going away; stdin ending means exactly that.
  // Requests already read are still answered (`echo … | searchdesk` gets its answers).
  stdin.once('end', () => void inFlight.drained(DRAIN_TIMEOUT_MS).then(resolveClosed));
  logger.info({ event: 'stdio_ready' }, 'MCP server ready on stdio');
  return { closed, close: () => server.close() };
}
