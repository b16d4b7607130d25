/**
 * A 2026-07-28 client over stdio discovers the server (`server/discover`) and lists its tools
 * before anything else, and neither needs the SDK's code: their answers are the SDK's own,
 * computed when the bundle is built (discovery-answers.ts). The figure this keeps: the stdio
 * cold start, spawn → tools/list answer, at most 200 ms (issue 51; `overhead.js --era
 * 2026-07-28`): loading the SDK takes about as long as the rest of the start
 * (bench/DECISIONS.md#d-sdk-v2), so it loads once the tool list is out. Anything else, or a request these answers
 * might not fit, goes to the SDK.
 */
import { DISCOVERY_ANSWERS } from './discovery-answers.js';
import { isPlainObject, MODERN_PROTOCOL_VERSION, type JsonRpcMessage, type JsonRpcResponse } from './protocol.js';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const OBJECT_KEYS = ['io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities'];

/**
 * The answer to a plain `server/discover` or first-page `tools/list` carrying a whole 2026-07-28
 * envelope, for a server of the version the answers were built for; undefined for anything else.
 */
export type DiscoveryAnswer = typeof discoveryAnswer;

export function discoveryAnswer(message: JsonRpcMessage, version: string | undefined): JsonRpcResponse | undefined {
  if (!('method' in message) || !('id' in message) || version !== DISCOVERY_ANSWERS.version) return undefined;
  const result =
    message.method === 'server/discover'
      ? DISCOVERY_ANSWERS.discover
      : message.method === 'tools/list'
        ? DISCOVERY_ANSWERS.toolsList
        : undefined;
  const params = message.params ?? {};
  const meta = params._meta;
  if (result === undefined || Object.keys(params).length !== 1 || !isPlainObject(meta)) return undefined;
  if (meta[VERSION_KEY] !== MODERN_PROTOCOL_VERSION || !OBJECT_KEYS.every((k) => isPlainObject(meta[k]))) return undefined;
  // In the SDK's own key order, so the line is the one it would write.
  return { result, jsonrpc: '2.0', id: message.id };
}
