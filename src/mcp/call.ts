/**
 * One tool call on the MCP server (loaded on the first call): arguments → caller → account →
 * search or read → result.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { openContext } from '../search/core.js';
import { toSearchError } from '../errors.js';
import {
  coerceNumericStrings,
  parseWith,
  readInputProblems,
  readParamsSchemas,
  type Operation,
  type ParamsOf,
  type ReadOperation,
  type ReadParamsOf,
} from '../search/params.js';
import { runRead } from '../search/read/index.js';
import type { Payload } from '../search/records.js';
import { runSearch } from '../search/service.js';
import { resolveAccountId } from './account.js';
import { toReadToolResult, toToolError, toToolResult, toolErrorText } from './result.js';
import type { McpServerOptions } from './server.js';
import { findTool, TOOL_NAMES, type ToolDef } from './tools.js';

function countRows(payload: Payload): Record<string, number> {
  return Object.fromEntries(Object.entries(payload).map(([key, rows]) => [key, (rows as unknown[]).length]));
}

/** One tool call: never throws; one log line and one observer event per call. */
export async function callTool(
  opts: McpServerOptions,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const started = performance.now();
  const def = findTool(name);
  const tool = def?.name ?? 'unknown';
  const log = opts.logger.child({ tool });
  const facts: Record<string, unknown> = {};
  let status = 'ok';
  try {
    if (!def) {
      status = 'unknown_tool';
      return toolErrorText(`Unknown tool. The tools are: ${TOOL_NAMES.join(', ')}`);
    }
    return await runTool(opts, def, args, facts, log);
  } catch (err) {
    const error = toSearchError(err);
    status = error.code;
    return toToolError(error, log);
  } finally {
    const durationMs = +(performance.now() - started).toFixed(1);
    log.info({ event: 'tool_call', status, ms: durationMs, ...facts }, 'tool call');
    opts.onToolCall?.({ tool, status, durationMs });
  }
}

const isRead = (op: Operation | ReadOperation): op is ReadOperation => Object.hasOwn(readParamsSchemas, op);

/**
 * arguments (every problem in one message) → caller → account → search or read → result; each
 * step throws a SearchError. Arguments come first so a model can fix them in one round trip.
 */
async function runTool(
  opts: McpServerOptions,
  def: ToolDef,
  args: Record<string, unknown> | undefined,
  facts: Record<string, unknown>,
  log: Logger,
): Promise<CallToolResult> {
  const { deps, config } = opts;
  const input = coerceNumericStrings(args ?? {});
  const { account_id: given, ...params } = parseWith(def.inputSchema, input, readInputProblems(def.op, input)) as {
    account_id?: number;
  };
  const caller = await opts.resolveCaller();
  facts.user = caller.userId;
  const accountId = await resolveAccountId(deps, caller, given, config.defaultAccountId);
  facts.account = accountId;
  const ctx = await openContext(deps, caller, accountId, log);
  if (isRead(def.op)) {
    const result = await runRead(ctx, def.op, params as ReadParamsOf<typeof def.op>);
    const toolResult = toReadToolResult(result, config.maxResultChars);
    Object.assign(facts, { engine: result.meta.engine, truncated: toolResult._meta.truncated ?? false });
    return toolResult;
  }
  const result = await runSearch(ctx, deps.engines, def.op, params as ParamsOf<typeof def.op>);
  const toolResult = toToolResult(result, config.maxResultChars);
  Object.assign(facts, {
    counts: countRows(result.payload),
    engine: result.meta.engine,
    truncated: toolResult._meta.truncated ?? false,
  });
  return toolResult;
}
