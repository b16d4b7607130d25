/**
 * What an MCP session is given by its transport (stdio: the process; HTTP: one request): the
 * search dependencies, the caller's token and the observers. Its own module so the server
 * (server.ts) and the lazily loaded tool call (call.ts) share it without importing each other.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { SearchDeps } from '../search/core.js';

/** What a finished tool call reports to observers (metrics). */
export interface ToolCallEvent {
  tool: string;
  /** `ok`, a SearchError code, or `unknown_tool`. */
  status: string;
  durationMs: number;
}

export interface McpServerOptions {
  deps: SearchDeps;
  config: Pick<Config, 'defaultAccountId' | 'maxResultChars'>;
  logger: Logger;
  /** The session's token (stdio: SEARCHDESK_ACCESS_TOKEN; HTTP: the request's header), checked on every call. */
  token: string | undefined;
  version?: string;
  onToolCall?: (event: ToolCallEvent) => void;
  /**
   * Runs a tool call's log line once its answer is out (HTTP: after the response is written, as
   * handing a line to the log costs about 0.1 ms the caller need not wait for); absent: at once.
   */
  afterAnswer?: (task: () => void) => void;
}
