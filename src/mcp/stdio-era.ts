/**
 * The era of a stdio connection is its opening's: an initialize keeps it on searchdesk's 2025-era
 * server (server.ts); a 2026-07-28 message before any initialize hands this and every later message
 * to the SDK (modern.ts). The SDK is loaded once the connection needs it: at its first message
 * that is not discovery, or once the tool list is out (discovery.ts answers those two meanwhile;
 * imported here, not on demand, so that the answers need no turn of the event loop, in which the
 * embedded database's start would run first).
 */
import type { Logger } from '../logger.js';
import { discoveryAnswer } from './discovery.js';
import type { ModernStdio } from './modern.js';
import { errorResponse, isModernMessage, isRequest, RPC_ERROR, type JsonRpcMessage } from './protocol.js';
import { createMcpServer, type McpServerOptions } from './server.js';

export interface EraRouter {
  /** Answers one message (writes its answer, if any); resolves once written. */
  answer(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
}

/** The 2026-07-28 side of a connection: discovery at once, the rest through the SDK. */
function modernRouter(session: McpServerOptions, logger: Logger, write: (message: unknown) => void): EraRouter {
  let sdk: Promise<ModernStdio> | undefined;
  const load = () => (sdk ??= import('./modern.js').then((m) => m.serveModernStdio(session, write)));
  const viaSdk = (message: JsonRpcMessage) =>
    load()
      .then((channel) => channel.deliver(message))
      .catch((err: unknown) => {
        logger.error({ event: 'mcp_internal_error', err }, 'MCP request failed unexpectedly');
        if (isRequest(message)) write(errorResponse(message.id, RPC_ERROR.internalError, 'Internal error'));
      });
  return {
    async answer(message) {
      const answer = sdk ? undefined : await discoveryAnswer(message, session);
      if (!answer) return viaSdk(message);
      write(answer);
      // The tool list is out: load the SDK now, so the first tool call need not wait for it.
      if ('method' in message && message.method === 'tools/list') setImmediate(() => void load().catch(() => {}));
    },
    // A load that failed was answered on each call; closing has nothing left to do then.
    close: () => (sdk ?? Promise.resolve(undefined)).then((channel) => channel?.close()).catch(() => {}),
  };
}

export function eraRouter(session: McpServerOptions, logger: Logger, write: (message: unknown) => void): EraRouter {
  const server = createMcpServer(session);
  let modern: EraRouter | undefined;
  let initialized = false;
  return {
    answer(message) {
      if (!modern && !initialized && isModernMessage(message)) modern = modernRouter(session, logger, write);
      if (modern) return modern.answer(message);
      if ('method' in message && message.method === 'initialize') initialized = true;
      return server.receive(message).then((response) => void (response && write(response)));
    },
    close: () => modern?.close() ?? Promise.resolve(),
  };
}
