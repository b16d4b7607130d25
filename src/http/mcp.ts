/**
 * MCP over Streamable HTTP at `POST /mcp`, stateless: a fresh server and transport per request, so
 * any instance can answer any request. The token is checked before the MCP layer sees anything
 * (a refusal is a 401; Postgres down lets the request through, see openSession) and on every tool call.
 */
import { createMcpServer } from '../mcp/server.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { openSession } from '../search/core.js';
import { headerValue, type RequestContext } from './context.js';
import { BodyTooLargeError, readBody, sendError, sendJsonRpcError } from './respond.js';

/** `api_access_token`, else `Authorization: Bearer <token>`. */
export function mcpToken(ctx: RequestContext): string | undefined {
  const direct = headerValue(ctx.req, 'api_access_token');
  if (direct !== undefined) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headerValue(ctx.req, 'authorization') ?? '');
  return bearer?.[1];
}

/** Opens the request's session (openSession in the core); false once a refusal is answered (401). */
async function admitMcp(ctx: RequestContext, token: string | undefined): Promise<boolean> {
  try {
    const { caller } = await openSession(ctx.app.deps, token);
    if (caller) ctx.facts.user = caller.userId;
    return true;
  } catch (err) {
    sendError(ctx.res, err, ctx.log);
    return false;
  }
}

/** The JSON-RPC body, or undefined after answering 413/400 in JSON-RPC style. */
async function readJsonRpc(ctx: RequestContext): Promise<{ body: unknown } | undefined> {
  let raw: Buffer;
  try {
    raw = await readBody(ctx.req);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    sendJsonRpcError(ctx.res, 413, -32600, 'Request body too large (limit 1 MiB)', { connection: 'close' });
    ctx.req.resume();
    return undefined;
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    sendJsonRpcError(ctx.res, 400, -32700, 'Parse error: the body is not valid JSON');
    return undefined;
  }
}

export async function handleMcp(ctx: RequestContext): Promise<void> {
  const { req, res, app, log, metrics } = ctx;
  if (req.method !== 'POST') {
    sendJsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless, use POST', { allow: 'POST' });
    return;
  }
  const token = mcpToken(ctx);
  if (!(await admitMcp(ctx, token))) return;
  const parsed = await readJsonRpc(ctx);
  if (!parsed) return;

  const server = createMcpServer({
    deps: app.deps,
    config: app.config,
    logger: log,
    token,
    version: app.version,
    onToolCall: (e) => metrics.observeToolCall(e.tool, e.status, e.durationMs / 1000),
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed.body);
}
