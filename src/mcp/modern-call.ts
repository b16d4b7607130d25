/**
 * The one 2026-07-28 exchange searchdesk answers without the SDK: a plainly well-formed
 * `tools/call` over HTTP. Everything else of that revision (discovery, the tool list, every
 * refusal, any request this module does not recognise as plain) is the SDK's (modern.ts).
 *
 * Why: the SDK serves each HTTP request with a fresh server, a web-standard request and response
 * and a parse of the message and of the result, and at concurrency 32 that raised the HTTP
 * server's peak memory far over the 2025 era's (bench/DECISIONS.md#d-sdk-v2 has the figures);
 * issue 51 allows no higher peak. The answer is the one the SDK writes, byte for byte
 * (test/mcp-modern.test.ts compares them, `MODERN_CALLS.ownAnswers` off).
 */
import type * as CallModuleType from './call.js';
import { plainServerInfoOf } from './identity.js';
import type { McpServerOptions } from './options.js';
import { isPlainObject, MODERN_PROTOCOL_VERSION, type JsonRpcId } from './protocol.js';

type CallModule = typeof CallModuleType;
let calls: Promise<CallModule> | undefined;

/** Whether plain tool calls are answered here (tests turn it off to get the SDK's answers). */
export const MODERN_CALLS = { ownAnswers: true };

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const ENVELOPE_KEYS = new Set([
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

/** A plain 2026-07-28 tool call: what this module answers. */
export interface PlainCall {
  id: JsonRpcId;
  name: string;
  args: Record<string, unknown> | undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** The envelope exactly: the version, a client with a name and a version, capabilities; nothing else. */
function plainEnvelope(meta: unknown): boolean {
  if (!isPlainObject(meta) || Object.keys(meta).some((k) => !ENVELOPE_KEYS.has(k))) return false;
  const client = meta['io.modelcontextprotocol/clientInfo'];
  return (
    meta['io.modelcontextprotocol/protocolVersion'] === MODERN_PROTOCOL_VERSION &&
    isPlainObject(client) &&
    isString(client.name) &&
    isString(client.version) &&
    isPlainObject(meta['io.modelcontextprotocol/clientCapabilities'])
  );
}

/**
 * The body as a plain tool call when it is one in every respect the SDK checks (the standard
 * headers agree with it, the envelope is whole, nothing else rides along); else undefined.
 */
export function plainCall(header: (name: string) => string | undefined, body: unknown): PlainCall | undefined {
  if (!MODERN_CALLS.ownAnswers || !isPlainObject(body)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0) return undefined;
  if (!(isString(id) || (typeof id === 'number' && Number.isSafeInteger(id))) || !isPlainObject(params)) return undefined;
  const { name, arguments: args, _meta, ...more } = params;
  if (!isString(name) || Object.keys(more).length > 0 || !plainEnvelope(_meta)) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  const headersAgree =
    header('mcp-protocol-version') === MODERN_PROTOCOL_VERSION &&
    header('mcp-method') === 'tools/call' &&
    header('mcp-name') === name;
  return headersAgree ? { id, name, args } : undefined;
}

/**
 * The JSON-RPC response to a plain tool call, as the SDK writes it: the tool result (call.ts) in
 * the order of the SDK's result schema (`_meta`, `content`, `structuredContent`, `isError`), then
 * `resultType`; the server's identity (without the icons, as modern.ts gives it to tool calls) in
 * `_meta`, added last when the result had none; the result before `jsonrpc` and `id`.
 */
export async function answerPlainCall(opts: McpServerOptions, call: PlainCall): Promise<object> {
  calls ??= import('./call.js');
  const { _meta, content, structuredContent, isError, ...rest } = await (await calls).callTool(opts, call.name, call.args);
  const identity = { [SERVER_INFO_KEY]: plainServerInfoOf(opts) };
  const result: Record<string, unknown> = _meta === undefined ? {} : { _meta: { ..._meta, ...identity } };
  result.content = content;
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (isError !== undefined) result.isError = isError;
  Object.assign(result, rest);
  result.resultType ??= 'complete';
  result._meta ??= identity;
  return { result, jsonrpc: '2.0', id: call.id };
}
