/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout; stdout carries nothing but protocol
 * (the logger writes to fd 2). The caller is the user of SEARCHDESK_ACCESS_TOKEN, checked once at
 * start (contract §2: a missing, unknown or bot token refuses to start) and again on every call
 * through the access cache, so a revoked token stops working within its bound
 * (ACCESS_CACHE_TTL_MS, 2 s).
 */
import { StringDecoder } from 'node:string_decoder';
import type { App } from '../app.js';
import type { Logger } from '../logger.js';
import { withAccessCache } from '../search/core.js';
import { errorResponse, RPC_ERROR, toMessage, type JsonRpcMessage, type JsonRpcResponse } from './protocol.js';
import { eraRouter } from './stdio-era.js';
import type { McpServerOptions } from './server.js';
import { startupToken } from './stdio-caller.js';

export interface StdioOptions {
  app: App;
  logger: Logger;
  /**
   * The token to use when none is configured. Unset ⇒ a missing token refuses to start.
   * (Hook for the embedded demo database, where stdio acts as the demo administrator.)
   */
  defaultToken?: string;
  /** The startup token check, already under way (serve starts it first); started here when absent. Its app must be the one given here. */
  token?: Promise<string>;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

export interface RunningStdio {
  /** Resolves when the client closes stdin (once the answers due are written) or the server is closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Lines split on \n (a trailing \r is dropped); a UTF-8 character split across chunks is kept
 * whole; blank lines are skipped.
 */
function lineSplitter(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  return (chunk) => {
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const line = buffered.slice(0, end).replace(/\r$/, '');
      buffered = buffered.slice(end + 1);
      if (line.trim() !== '') onLine(line);
      end = buffered.indexOf('\n');
    }
  };
}

/** Calls done once the answers still due are written, or after DRAIN_TIMEOUT_MS. */
function drain(pending: Set<Promise<void>>, done: () => void): void {
  const timer = setTimeout(done, DRAIN_TIMEOUT_MS);
  void Promise.allSettled([...pending]).then(() => {
    clearTimeout(timer);
    done();
  });
}

/** A line as a JSON-RPC message, or the error response to write back when it is not one. */
function readMessage(line: string, logger: Logger): { message: JsonRpcMessage } | { refusal: JsonRpcResponse } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    logger.warn({ event: 'mcp_transport_error', message: 'a line on stdin is not JSON' }, 'stdio transport error');
    return { refusal: errorResponse(null, RPC_ERROR.parseError, 'Parse error: the line is not valid JSON') };
  }
  const message = toMessage(value);
  if (message) return { message };
  logger.warn({ event: 'mcp_transport_error', message: 'not a JSON-RPC message' }, 'stdio transport error');
  return { refusal: errorResponse(null, RPC_ERROR.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message') };
}

/** Starts the stdio MCP server; throws ConfigError when the token is refused. */
export async function startStdioServer(opts: StdioOptions): Promise<RunningStdio> {
  const { logger } = opts;
  const app: App = { ...opts.app, deps: withAccessCache(opts.app.deps) };
  const token = await (opts.token ?? startupToken({ app, logger, defaultToken: opts.defaultToken }));
  const session: McpServerOptions = { deps: app.deps, config: app.config, logger, token, version: app.version };
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  /** Answers not written yet: stdin ending waits for them. */
  const pending = new Set<Promise<void>>();
  let open = true;

  const write = (response: unknown) => {
    if (open) stdout.write(`${JSON.stringify(response)}\n`);
  };

  const era = eraRouter(session, logger, write);

  const onLine = (line: string) => {
    const read = readMessage(line, logger);
    if ('refusal' in read) return write(read.refusal);
    const answered = era.answer(read.message);
    pending.add(answered);
    void answered.finally(() => pending.delete(answered));
  };

  const onData = lineSplitter(onLine);

  // stdin ending means the client went away; requests already read are still answered
  // (`echo … | searchdesk` gets its answers).
  const onEnd = () => drain(pending, resolveClosed);
  // A client that closed its end of stdout cannot be answered: stop as if stdin had ended.
  const onWriteError = (err: Error) => {
    logger.warn({ event: 'mcp_transport_error', message: err.message }, 'stdio transport error');
    open = false;
    resolveClosed();
  };

  stdin.on('data', onData);
  stdin.once('end', onEnd);
  stdout.on('error', onWriteError);
  logger.info({ event: 'stdio_ready' }, 'MCP server ready on stdio');
  return {
    closed,
    async close() {
      open = false;
      await era.close();
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdout.off('error', onWriteError);
      stdin.pause();
      resolveClosed();
    },
  };
}
