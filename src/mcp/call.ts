/**
 * One tool call on the MCP server (loaded on the first call): the tool's arguments go through the
 * core's pipeline (src/search/pipeline.ts: arguments → token → account → access → search or
 * read); this module maps the outcome to a tool result or a tool error.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { toSearchError } from '../errors.js';
import { coerceNumericStrings, parseWith, readInputProblems } from '../search/params.js';
import { handle, isReadOperation, isTriageOperation, type ParamsFor } from '../search/pipeline.js';
import type { ReadResult } from '../search/read/index.js';
import type { SearchResult } from '../search/service.js';
import type { TriageResult } from '../search/triage.js';
import type { ConversationList } from '../search/triage-records.js';
import { isoNow } from './iso-times.js';
import { toToolError, toToolResult, toolErrorText, type ResultFacts } from './result.js';
import type { McpServerOptions } from './options.js';
import { findTool, TOOL_NAMES, type ToolDef } from './tools.js';

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
    const outcome = await handle(opts.deps, {
      token: opts.token,
      account: { argument: true, fallback: opts.config.defaultAccountId },
      operation: def.op,
      params: () => parseArguments(def, args),
      logger: log,
    });
    Object.assign(facts, outcome.facts);
    if (outcome.error) throw outcome.error;
    const call = { args: args ?? {}, now: isoNow(opts.deps.now()), maxResultChars: opts.config.maxResultChars };
    const { body, meta } = bodyOf(def, outcome.result);
    const result = toToolResult(def.name, body, meta, call);
    facts.truncated = result._meta.truncated ?? false;
    return result;
  } catch (err) {
    const error = toSearchError(err);
    status = error.code;
    return toToolError(error, log);
  } finally {
    const durationMs = +(performance.now() - started).toFixed(1);
    opts.onToolCall?.({ tool, status, durationMs });
    const line = () => log.info({ event: 'tool_call', status, ms: durationMs, ...facts }, 'tool call');
    if (opts.afterAnswer) opts.afterAnswer(line);
    else line();
  }
}

/** What a tool returns before MCP's `meta`: a search its `{payload}`, a read its own body; and the facts of either. */
function bodyOf(def: ToolDef, result: unknown): { body: object; meta: ResultFacts } {
  if (isReadOperation(def.op)) return result as ReadResult;
  if (isTriageOperation(def.op)) {
    const { body, meta } = result as TriageResult;
    if (def.op !== 'list_conversations') return { body, meta };
    // The help desk's {data: {meta: counts, payload}} as MCP's {payload, meta} (contract §10).
    const { data } = body as ConversationList;
    return { body: { payload: { conversations: data.payload, counts: data.meta } }, meta };
  }
  const search = result as SearchResult;
  return { body: { payload: search.payload }, meta: search.meta };
}

/** The tool's arguments, validated by its schema (`account_id` included); every problem in one message. */
function parseArguments(def: ToolDef, args: Record<string, unknown> | undefined) {
  const input = coerceNumericStrings(args ?? {});
  return parseWith(def.inputSchema, input, readInputProblems(def.op, input)) as ParamsFor<ToolDef['op']> & {
    account_id?: number;
  };
}
