/**
 * MCP over stdio: stdout carries nothing but protocol (the logger writes to fd 2). The caller is
 * the user of SEARCHDESK_ACCESS_TOKEN, checked once at start (contract §2: a missing, unknown or
 * bot token refuses to start) and again on every call through the access cache, so a revoked
 * token stops working within its bound (ACCESS_CACHE_TTL_MS, 2 s).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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

/**
 * Counts the tool calls not yet answered (the only requests that wait on I/O; the others are
 * answered at once). The SDK writes a call's answer in the microtasks after its handler settles,
 * so idleness is judged one macrotask later: by then every answer due has been written.
 */
function inFlightCalls() {
  let pending = 0;
  let onSettled: (() => void) | undefined;
  return {
    started: () => void (pending += 1),
    settled() {
      pending -= 1;
      onSettled?.();
    },
    /** Resolves once no call is left to answer, or after `timeoutMs`. */
    drained: (timeoutMs: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        const check = () => {
          if (pending > 0) return;
          clearTimeout(timer);
          resolve();
        };
        onSettled = () => setImmediate(check);
        // Requests already read may not have reached their handler yet (stdin's end comes first).
        setImmediate(check);
      }),
  };
}

/** Starts the stdio MCP server; throws ConfigError when the token is refused. */
export async function startStdioServer(opts: StdioOptions): Promise<RunningStdio> {
  const { logger } = opts;
  const app: App = { ...opts.app, deps: withAccessCache(opts.app.deps) };
  const token = await (opts.token ?? startupToken({ app, logger, defaultToken: opts.defaultToken }));
  const inFlight = inFlightCalls();
  const server = createMcpServer({ deps: app.deps, config: app.config, logger, token, version: app.version, inFlight });
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
  // The SDK transport does not notice the client going away; stdin ending means exactly that.
  // Requests already read are still answered (`echo … | searchdesk` gets its answers).
  stdin.once('end', () => void inFlight.drained(DRAIN_TIMEOUT_MS).then(resolveClosed));
  logger.info({ event: 'stdio_ready' }, 'MCP server ready on stdio');
  return { closed, close: () => server.close() };
}
