/**
 * JSON-RPC 2.0 as MCP uses it: the message shapes, telling them apart, and error responses.
 * Shared by both transports (stdio.ts, src/http/mcp.ts) and the server (server.ts).
 *
 * Why not the SDK's server classes: their message schemas are zod objects built when the module
 * loads (tens of ms of every stdio start), and over stateless HTTP every request built a server
 * and a transport, converted the Node request to a web-standard one and parsed each message and
 * each tool result with zod again (about 1.5 ms of every call). A tools-only server needs four
 * methods; the SDK's client in the tests checks that we speak the protocol it speaks.
 */

/**
 * The protocol versions this server speaks, newest first (the SDK 1.x list: a test keeps them
 * equal). `initialize` answers the client's version when it is here, else the newest.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/**
 * The version of a request over HTTP that names none (no `MCP-Protocol-Version` header, and not an
 * initialize): what the spec (2025-06-18, Streamable HTTP) tells a server to assume.
 */
export const DEFAULT_PROTOCOL_VERSION = '2025-03-26';

/** The version `initialize` answers: the client's when this server speaks it, else the newest. */
export function negotiateVersion(asked: unknown): string {
  return typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : SUPPORTED_PROTOCOL_VERSIONS[0]!;
}

/**
 * Whether a protocol version lets a client send a JSON-RPC batch: 2025-03-26 and before; the
 * revision of 2025-06-18 removed batching, and no later one has it (versions are dates, so they
 * compare as strings).
 */
export function allowsBatches(version: string): boolean {
  return version < '2025-06-18';
}

/**
 * The stateless revision, spoken by `@modelcontextprotocol/server` 2.x (modern.ts): no initialize,
 * every request carries its own `_meta` envelope naming the version.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The envelope key of a 2026-07-28 message that names its protocol version. */
const ENVELOPE_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a message opens or belongs to the 2026-07-28 era: `server/discover` (its discovery), or
 * a request or notification carrying the per-request envelope. 2025-era messages never carry it.
 */
export function isModernMessage(message: JsonRpcMessage): boolean {
  if (!('method' in message)) return false;
  if (message.method === 'server/discover') return true;
  const meta = message.params?._meta;
  return isPlainObject(meta) && ENVELOPE_VERSION_KEY in meta;
}

export type JsonRpcId = string | number;
type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Params;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: JsonRpcError;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The JSON-RPC error codes this server answers with. */
export const RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** The value as a JSON-RPC message, or undefined when it is not one. */
export function toMessage(value: unknown): JsonRpcMessage | undefined {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string') return undefined;
    if (value.params !== undefined && !isPlainObject(value.params)) return undefined;
    if ('id' in value && !isId(value.id)) return undefined;
    return value as unknown as JsonRpcRequest | JsonRpcNotification;
  }
  const answers = ('result' in value && isPlainObject(value.result)) || ('error' in value && isPlainObject(value.error));
  if (answers && (isId(value.id) || value.id === null)) return value as unknown as JsonRpcResponse;
  return undefined;
}

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

export function errorResponse(id: JsonRpcId | null, code: number, message: string): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}
