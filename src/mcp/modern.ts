/**
 * The 2026-07-28 protocol revision, spoken by `@modelcontextprotocol/server` 2.x: discovery
 * without initialize, the per-request `_meta` envelope, the standard headers over HTTP and their
 * errors are all the SDK's. searchdesk gives it one server factory (v2's pattern: a fresh
 * low-level `Server` for each HTTP request and for each stdio connection) answering the same
 * tool list and the same tool calls (call.ts) as the 2025-era layer (server.ts), so the results
 * are the same in both eras but for what the revision adds to every result.
 *
 * Loaded only when a client speaks 2026-07-28 (src/http/mcp.ts, stdio.ts decide that from the
 * message), so 2025-era clients and the start never load the SDK: bench/DECISIONS.md#d-sdk-v2
 * has the figures (its code adds to the start and to the server's peak memory).
 *
 * Arguments: the SDK parses each request with its own schemas, and a parsed copy of an argument
 * object turns an own `__proto__` key into a prototype; tool calls take the arguments as the
 * transport parsed them (`argsOf`), which the core's checks see as they were sent.
 */
import { createMcpHandler, Server, type McpHttpHandler, type Tool } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import type * as CallModuleType from './call.js';
import { SERVER_ICONS } from './icons.js';
import { INSTRUCTIONS, plainServerInfoOf, serverInfoOf } from './identity.js';
import type { McpServerOptions } from './options.js';
import type { JsonRpcId, JsonRpcMessage } from './protocol.js';
import { TOOL_LIST } from './tool-list.js';

type CallModule = typeof CallModuleType;
let calls: Promise<CallModule> | undefined;

/** A tool call's arguments as the transport parsed them, by JSON-RPC id. */
type ArgsOf = (id: JsonRpcId) => Record<string, unknown> | undefined;

/**
 * The server of one HTTP request or one stdio connection, in the 2026-07-28 era. The revision
 * repeats `serverInfo` in every result's `_meta`; the icons are in it only where a host shows the
 * server (`withIcons`: discovery, the tool list), not on an HTTP tool call.
 */
function modernServer(opts: McpServerOptions, argsOf: ArgsOf, withIcons = true): Server {
  const info = withIcons ? { ...serverInfoOf(opts), icons: [...SERVER_ICONS] } : plainServerInfoOf(opts);
  const server = new Server(info, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler('tools/list', () => ({ tools: TOOL_LIST as Tool[] }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    calls ??= import('./call.js');
    const args = argsOf(ctx.mcpReq.id) ?? request.params.arguments;
    return (await calls).callTool(opts, request.params.name, args);
  });
  return server;
}

/** The arguments of a tools/call message, when it is one and they are an object. */
function callArguments(message: JsonRpcMessage): Record<string, unknown> | undefined {
  if (!('method' in message) || message.method !== 'tools/call') return undefined;
  const args = message.params?.arguments;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
}

/** One HTTP request in the 2026-07-28 era: what the transport already knows of it. */
export interface ModernHttpRequest {
  url: string;
  headers: Headers;
  /** The body as the transport parsed it (one message, or a batch the SDK refuses). */
  body: unknown;
  opts: McpServerOptions;
}

const sessions = new WeakMap<Request, { opts: McpServerOptions; body: unknown }>();
let handler: McpHttpHandler | undefined;

/**
 * Answers one 2026-07-28 request over HTTP with the SDK's handler (its classification, header
 * checks, errors and response shaping); the caller has checked the token, the media types, the
 * body size and the rate limit.
 */
export function answerModernHttp(request: ModernHttpRequest): Promise<Response> {
  handler ??= createMcpHandler(
    (ctx) => {
      const session = ctx.requestInfo && sessions.get(ctx.requestInfo);
      if (!session) throw new Error('a 2026-07-28 request without its session');
      const message = Array.isArray(session.body) ? undefined : (session.body as JsonRpcMessage);
      const args = message && callArguments(message);
      const call = message !== undefined && 'method' in message && message.method === 'tools/call';
      return modernServer(session.opts, () => args, !call);
    },
    // What the SDK refuses it answers in the response; the request's log line has the status.
    { legacy: 'reject', onerror: () => {} },
  );
  const web = new Request(request.url, { method: 'POST', headers: request.headers });
  sessions.set(web, { opts: request.opts, body: request.body });
  return handler.fetch(web, { parsedBody: request.body });
}

/** A stdio connection in the 2026-07-28 era: messages in from our line framing, answers out. */
export interface ModernStdio {
  /** Hands the SDK one message read from stdin; resolves once its answer (if any) is written. */
  deliver(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * The SDK's stdio serving (`serveStdio`) over the connection our framing reads: from the first
 * 2026-07-28 message on, every message goes to it, and what it sends is written as a line.
 */
export function serveModernStdio(opts: McpServerOptions, write: (message: unknown) => void): ModernStdio {
  const args = new Map<JsonRpcId, Record<string, unknown>>();
  const answered = new Map<JsonRpcId, () => void>();
  const channel: Transport = {
    start: () => Promise.resolve(),
    send(message: JSONRPCMessage) {
      write(message);
      const id = 'id' in message && !('method' in message) ? message.id : undefined;
      if (id !== undefined) {
        answered.get(id)?.();
        answered.delete(id);
      }
      return Promise.resolve();
    },
    close() {
      for (const done of answered.values()) done();
      answered.clear();
      channel.onclose?.();
      return Promise.resolve();
    },
  };
  const served = serveStdio(
    () =>
      modernServer(opts, (id) => {
        const found = args.get(id);
        args.delete(id);
        return found;
      }),
    // What the SDK refuses it answers on the connection itself.
    { transport: channel, legacy: 'reject', onerror: () => {} },
  );
  return {
    deliver(message) {
      const callArgs = callArguments(message);
      const id = 'id' in message && 'method' in message ? message.id : undefined;
      if (callArgs && id !== undefined) args.set(id, callArgs);
      const done = id === undefined ? Promise.resolve() : new Promise<void>((resolve) => answered.set(id, resolve));
      channel.onmessage?.(message as JSONRPCMessage);
      return done;
    },
    close: () => served.close(),
  };
}
