/**
 * MCP over Streamable HTTP at `POST /mcp`, stateless and answered as JSON (never a stream): every
 * request carries its whole exchange, so any instance can answer any request. The token is
 * checked before the MCP layer sees anything (a refusal is a 401; Postgres down lets the request
 * through, see openSession) and on every tool call. The checks in front of the messages are the
 * transport's (MCP spec, Streamable HTTP, and what the SDK's transport answers): Accept must name
 * JSON and event streams (406), the body must be JSON (415, 413, 400), a batch holds at most 100
 * messages and an `initialize` only on its own (400), and after initialization
 * `Mcp-Protocol-Version` must be a version this server speaks (400).
 *
 * Batches: the request's protocol version is its `Mcp-Protocol-Version` header, an initialize's
 * the one it negotiates, and without either 2025-03-26 (what the spec says to assume). A version
 * that has no batching (2025-06-18 on) gets a body holding an array refused as an Invalid Request
 * (400, -32600, before anything in it runs); an older one gets each message of its batch counted
 * against the rate limit, and a batch over it refused whole (429).
 */
import { createMcpServer, type McpServerOptions } from '../mcp/server.js';
import {
  allowsBatches,
  DEFAULT_PROTOCOL_VERSION,
  isModernMessage,
  isRequest,
  MODERN_PROTOCOL_VERSION,
  negotiateVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  toMessage,
  type JsonRpcMessage,
} from '../mcp/protocol.js';
import { answerPlainCall, plainCall } from '../mcp/modern-call.js';
import { openSession } from '../search/core.js';
import { headerValue, type RequestContext } from './context.js';
import { answerRateLimited } from './rate-limit.js';
import { BodyTooLargeError, readBody, sendError, sendJson, sendJsonRpcError } from './respond.js';

/** Most messages in one batch (the SDK transport's bound). */
export const MAX_BATCH_MESSAGES = 100;

/**
 * Opens the request's session (openSession in the core) and tells the rate limit whether the
 * token named a user; false once a refusal is answered (401).
 */
async function admitMcp(ctx: RequestContext): Promise<boolean> {
  try {
    const { caller } = await openSession(ctx.app.deps, ctx.token);
    ctx.limit?.settle(caller !== undefined);
    if (caller) ctx.facts.user = caller.userId;
    return true;
  } catch (err) {
    ctx.limit?.settle(false, err);
    sendError(ctx.res, err, ctx.log);
    return false;
  }
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Accept and Content-Type; false once a 406 or 415 is answered. */
function acceptable(ctx: RequestContext): boolean {
  const accept = headerValue(ctx.req, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    sendJsonRpcError(ctx.res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    return false;
  }
  if (mediaType(headerValue(ctx.req, 'content-type')) !== 'application/json') {
    sendJsonRpcError(ctx.res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    return false;
  }
  return true;
}

/** The body: one JSON-RPC message, or a batch (an array) of them. */
interface Body {
  messages: JsonRpcMessage[];
  batch: boolean;
  /** The body as parsed (what the 2026-07-28 handler is given). */
  value: unknown;
}

/** The body's JSON-RPC messages, or undefined after answering 413/400. */
async function readMessages(ctx: RequestContext): Promise<Body | undefined> {
  let raw: Buffer;
  try {
    raw = await readBody(ctx.req);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    sendJsonRpcError(ctx.res, 413, -32600, 'Request body too large (limit 1 MiB)', { connection: 'close' });
    ctx.req.resume();
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    sendJsonRpcError(ctx.res, 400, -32700, 'Parse error: the body is not valid JSON');
    return undefined;
  }
  const values: unknown[] = Array.isArray(body) ? body : [body];
  if (values.length > MAX_BATCH_MESSAGES) {
    sendJsonRpcError(ctx.res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`);
    return undefined;
  }
  const messages = values.map(toMessage);
  if (values.length === 0 || messages.some((m) => m === undefined)) {
    sendJsonRpcError(ctx.res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    return undefined;
  }
  return { messages: messages as JsonRpcMessage[], batch: Array.isArray(body), value: body };
}

/** The lifecycle rules of a stateless request, and batches only where its version has them; false once a 400 is answered. */
function validExchange(ctx: RequestContext, { messages, batch }: Body): boolean {
  const initialize = messages.filter(isRequest).find((m) => m.method === 'initialize');
  const initializing = initialize !== undefined;
  if (initializing && messages.length > 1) {
    sendJsonRpcError(ctx.res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
    return false;
  }
  const version = headerValue(ctx.req, 'mcp-protocol-version');
  if (!initializing && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    sendJsonRpcError(
      ctx.res,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
    );
    return false;
  }
  const negotiated = initialize ? negotiateVersion(initialize.params?.protocolVersion) : (version ?? DEFAULT_PROTOCOL_VERSION);
  if (batch && !allowsBatches(negotiated)) {
    sendJsonRpcError(ctx.res, 400, -32600, `Invalid Request: protocol version ${negotiated} has no JSON-RPC batches`);
    return false;
  }
  return true;
}

/** Counts the further messages of a batch against the rate limit; false once a 429 is answered. */
async function withinBatchLimit(ctx: RequestContext, messages: JsonRpcMessage[]): Promise<boolean> {
  if (messages.length < 2 || !ctx.limit) return true;
  const verdict = await ctx.limit.charge(messages.length - 1);
  if (verdict.allowed) return true;
  answerRateLimited(ctx, '/mcp', verdict);
  return false;
}

/** The options of the request's MCP session; the tool calls' log lines go to `logLines`, written once the response is. */
function sessionOptions(ctx: RequestContext, logLines: Array<() => void>): McpServerOptions {
  const { app, log, metrics } = ctx;
  return {
    deps: app.deps,
    config: app.config,
    logger: log,
    token: ctx.token,
    version: app.version,
    onToolCall: (e) => metrics.observeToolCall(e.tool, e.status, e.durationMs / 1000),
    afterAnswer: (line) => logLines.push(line),
  };
}

/** A 2026-07-28 exchange: its version header, or a message carrying the revision's envelope. */
function isModernExchange(ctx: RequestContext, { messages }: Body): boolean {
  return headerValue(ctx.req, 'mcp-protocol-version') === MODERN_PROTOCOL_VERSION || messages.some(isModernMessage);
}

/**
 * Answers a 2026-07-28 exchange: a plain tool call, discovery or tool list by searchdesk's own
 * answer (src/mcp/modern-call.ts, the SDK's answer byte for byte), anything else with the SDK
 * (src/mcp/modern.ts, loaded by the first).
 */
async function answerModern(ctx: RequestContext, body: Body): Promise<void> {
  const logLines: Array<() => void> = [];
  const opts = sessionOptions(ctx, logLines);
  try {
    const call = plainCall((name) => headerValue(ctx.req, name), body.value);
    const own = call && (await answerPlainCall(opts, call));
    if (own) {
      const text = JSON.stringify(own);
      ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(ctx.req.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const { answerModernHttp } = await import('../mcp/modern.js');
    const response = await answerModernHttp({ url: ctx.url.href, headers, body: body.value, opts });
    const text = await response.text();
    const out: Record<string, string | number> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    out['content-length'] = Buffer.byteLength(text);
    ctx.res.writeHead(response.status, out).end(text);
  } finally {
    for (const line of logLines) line();
  }
}

export async function handleMcp(ctx: RequestContext): Promise<void> {
  const { req, res } = ctx;
  if (req.method !== 'POST') {
    sendJsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless, use POST', { allow: 'POST' });
    return;
  }
  if (!(await admitMcp(ctx))) return;
  if (!acceptable(ctx)) return;
  const body = await readMessages(ctx);
  if (body && isModernExchange(ctx, body)) return answerModern(ctx, body);
  if (!body || !validExchange(ctx, body) || !(await withinBatchLimit(ctx, body.messages))) return;
  const { messages } = body;

  // Notifications and client responses only: accepted, nothing to answer.
  if (!messages.some(isRequest)) {
    res.writeHead(202).end();
    return;
  }
  // The tool calls' log lines, written once the response is.
  const logLines: Array<() => void> = [];
  const server = createMcpServer(sessionOptions(ctx, logLines));
  try {
    const answers = (await Promise.all(messages.map((m) => server.receive(m)))).filter((a) => a !== undefined);
    // Every request cancelled by a notification of the same batch: nothing left to answer.
    if (answers.length === 0) res.writeHead(202).end();
    // One answer is one response object (as the SDK's transport answers a batch of one).
    else sendJson(res, 200, answers.length === 1 ? answers[0] : answers);
  } finally {
    for (const line of logLines) line();
  }
}
