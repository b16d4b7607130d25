/**
 * The MCP server: answers the JSON-RPC messages of one session (stdio: the process; HTTP: one
 * request). A tools-only server: `initialize`, `ping`, `tools/list`, `tools/call`; notifications
 * need no answer (`notifications/cancelled` drops the answer of the call it names). Argument
 * validation is ours: the shared zod schemas give the same messages as REST.
 *
 * The transport decides who the caller is (stdio: the configured token; HTTP: the request header)
 * and opens the session (openSession in the core); every tool call checks the token again.
 *
 * Cheap to create (HTTP makes one per request): the tool list is built once (at build time in the
 * bundle, see tool-list.ts), and the search machinery (call.ts: parameters, core, records) is
 * loaded on the first tool call, not at start.
 */
import type * as CallModuleType from './call.js';
import type { McpServerOptions } from './options.js';
import {
  errorResponse,
  isPlainObject,
  isRequest,
  negotiateVersion,
  RPC_ERROR,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from './protocol.js';
import { INSTRUCTIONS, serverInfoOf, type ServerInfo } from './identity.js';
import { TOOL_LIST } from './tool-list.js';

export type { McpServerOptions, ToolCallEvent } from './options.js';

export interface McpServer {
  /**
   * Answers one message: a response for a request (never a rejection: failures are JSON-RPC
   * errors or tool errors), undefined for a notification, a client's response, or a request the
   * client cancelled while it ran.
   */
  receive(message: JsonRpcMessage): Promise<JsonRpcResponse | undefined>;
}

type CallModule = typeof CallModuleType;
let calls: Promise<CallModule> | undefined;

/** A request the server cannot answer as asked: a JSON-RPC error response with this code. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The result of one request; throws RpcError for a request that cannot be answered as asked. */
async function answer(opts: McpServerOptions, serverInfo: ServerInfo, request: JsonRpcRequest): Promise<unknown> {
  const params = request.params ?? {};
  switch (request.method) {
    case 'initialize': {
      if (typeof params.protocolVersion !== 'string')
        throw new RpcError(RPC_ERROR.invalidParams, 'Invalid params: initialize needs a protocolVersion string');
      return {
        protocolVersion: negotiateVersion(params.protocolVersion),
        capabilities: { tools: {} },
        serverInfo,
        instructions: INSTRUCTIONS,
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: TOOL_LIST };
    case 'tools/call': {
      const { name, arguments: args } = params;
      if (typeof name !== 'string')
        throw new RpcError(RPC_ERROR.invalidParams, 'Invalid params: tools/call needs the tool name as a string');
      if (args !== undefined && !isPlainObject(args))
        throw new RpcError(RPC_ERROR.invalidParams, 'Invalid params: tools/call arguments must be an object');
      calls ??= import('./call.js');
      return (await calls).callTool(opts, name, args);
    }
    default:
      throw new RpcError(RPC_ERROR.methodNotFound, 'Method not found');
  }
}

/** Creates the MCP server of one session (one per stdio process, one per HTTP request). */
export function createMcpServer(opts: McpServerOptions): McpServer {
  const serverInfo = serverInfoOf(opts);
  /** Requests still running, and those of them the client cancelled (their answers are dropped). */
  const running = new Set<JsonRpcId>();
  const cancelled = new Set<JsonRpcId>();

  return {
    async receive(message) {
      if (!isRequest(message)) {
        if ('method' in message && message.method === 'notifications/cancelled') {
          const id = message.params?.requestId;
          if ((typeof id === 'string' || typeof id === 'number') && running.has(id)) cancelled.add(id);
        }
        return undefined;
      }
      let response: JsonRpcResponse;
      running.add(message.id);
      try {
        response = { jsonrpc: '2.0', id: message.id, result: await answer(opts, serverInfo, message) };
      } catch (err) {
        if (!(err instanceof RpcError)) {
          opts.logger.error({ event: 'mcp_internal_error', err }, 'MCP request failed unexpectedly');
          response = errorResponse(message.id, RPC_ERROR.internalError, 'Internal error');
        } else response = errorResponse(message.id, err.code, err.message);
      } finally {
        running.delete(message.id);
      }
      return cancelled.delete(message.id) ? undefined : response;
    },
  };
}
