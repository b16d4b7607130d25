/**
 * The 2026-07-28 exchanges searchdesk answers over HTTP without the SDK: a plainly well-formed
 * `tools/call`, and a plain `server/discover` or first-page `tools/list` (the SDK's own answers,
 * computed at build: discovery-answers.ts). Everything else of that revision (every refusal, any
 * request this module does not recognise as plain) is the SDK's (modern.ts).
 *
 * Why, the figure it keeps: peak RSS at concurrency 32 over HTTP, no higher than the 2025 era's
 * (issue 51; `npm run bench:rss -- --era both`). Loading the SDK and its per-request serving (a
 * fresh server, a web-standard request and response, a parse of the message and of the result)
 * raised it far over (bench/DECISIONS.md#d-sdk-v2). Each answer is the one the SDK writes, byte
 * for byte (test/mcp-modern.test.ts compares them with `MODERN_CALLS.ownAnswers` off).
 */
import type * as CallModuleType from './call.js';
import { DISCOVERY_ANSWERS } from './discovery-answers.js';
import { plainServerInfoOf } from './identity.js';
import type { McpServerOptions } from './options.js';
import { isPlainObject, MODERN_PROTOCOL_VERSION, type JsonRpcId } from './protocol.js';

type CallModule = typeof CallModuleType;
let calls: Promise<CallModule> | undefined;

/** Whether plain requests are answered here (tests turn it off to get the SDK's answers), and how many were. */
export const MODERN_CALLS = { ownAnswers: true, answered: 0 };

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const ENVELOPE_KEYS = new Set([
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

/** A plain 2026-07-28 request: what this module answers. */
export interface PlainCall {
  id: JsonRpcId;
  method: 'tools/call' | 'server/discover' | 'tools/list';
  /** The tool and its arguments (tools/call). */
  name?: string;
  args?: Record<string, unknown>;
}

const PLAIN_METHODS = new Set(['tools/call', 'server/discover', 'tools/list']);

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
 * The body as a plain request when it is one in every respect the SDK checks (the standard
 * headers agree with it, the envelope is whole, nothing else rides along); else undefined.
 */
export function plainCall(header: (name: string) => string | undefined, body: unknown): PlainCall | undefined {
  if (!MODERN_CALLS.ownAnswers || !isPlainObject(body)) return undefined;
  const { jsonrpc, id, method, params, ...rest } = body;
  if (jsonrpc !== '2.0' || !isString(method) || !PLAIN_METHODS.has(method) || Object.keys(rest).length > 0) return undefined;
  if (!(isString(id) || (typeof id === 'number' && Number.isSafeInteger(id))) || !isPlainObject(params)) return undefined;
  const { name, arguments: args, _meta, ...more } = params;
  if (Object.keys(more).length > 0 || !plainEnvelope(_meta)) return undefined;
  const call = method === 'tools/call';
  if (call ? !isString(name) || (args !== undefined && !isPlainObject(args)) : name !== undefined || args !== undefined)
    return undefined;
  const headersAgree =
    header('mcp-protocol-version') === MODERN_PROTOCOL_VERSION &&
    header('mcp-method') === method &&
    header('mcp-name') === (call ? name : undefined);
  if (!headersAgree) return undefined;
  return call
    ? { id, method, name: name as string, args: args as Record<string, unknown> | undefined }
    : { id, method: method as PlainCall['method'] };
}

/** The answer to a plain request, as the SDK writes it; undefined when the SDK must answer. */
export async function answerPlainCall(opts: McpServerOptions, call: PlainCall): Promise<object | undefined> {
  const answer = call.method === 'tools/call' ? await toolAnswer(opts, call) : discoveryAnswer(opts, call);
  if (answer) MODERN_CALLS.answered++;
  return answer;
}

/** The SDK's answer to a plain discovery or tool list, when it was built for this version; else undefined (the SDK answers). */
function discoveryAnswer(opts: McpServerOptions, call: PlainCall): object | undefined {
  const built = DISCOVERY_ANSWERS;
  if (built.version !== opts.version) return undefined;
  return { result: call.method === 'server/discover' ? built.discover : built.toolsList, jsonrpc: '2.0', id: call.id };
}

/**
 * The JSON-RPC response to a plain tool call, as the SDK writes it: the tool result (call.ts) in
 * the order of the SDK's result schema (`_meta`, `content`, `structuredContent`, `isError`), then
 * `resultType`; the server's identity (without the icons, as modern.ts gives it to tool calls) in
 * `_meta`, added last when the result had none; the result before `jsonrpc` and `id`.
 */
async function toolAnswer(opts: McpServerOptions, call: PlainCall): Promise<object> {
  calls ??= import('./call.js');
  const { _meta, content, structuredContent, isError, ...rest } = await (await calls).callTool(opts, call.name!, call.args);
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
