/**
 * A 2026-07-28 client over stdio discovers the server (`server/discover`) and lists its tools
 * before anything else, and neither needs the SDK's code: their answers are the SDK's own,
 * computed when the bundle is built (discovery-answers.ts, given by modern-call.ts as over HTTP).
 * The figure this keeps: the stdio cold start, spawn → tools/list answer, at most 200 ms (issue
 * 51; `overhead.js --era 2026-07-28`): loading the SDK takes about as long as the rest of the
 * start (bench/DECISIONS.md#d-sdk-v2), so it loads once the tool list is out. Anything else, or
 * a request these answers might not fit, goes to the SDK.
 */
import { answerPlainCall, plainCall } from './modern-call.js';
import type { McpServerOptions } from './options.js';
import { MODERN_PROTOCOL_VERSION, type JsonRpcMessage } from './protocol.js';

/** A plain `server/discover` or first-page `tools/list`'s answer; undefined for anything else. */
export async function discoveryAnswer(message: JsonRpcMessage, opts: McpServerOptions): Promise<object | undefined> {
  if (!('method' in message)) return undefined;
  // stdio has no headers: the ones a plain request over HTTP would carry.
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': message.method };
  const plain = plainCall((name) => headers[name], message);
  return plain && plain.method !== 'tools/call' ? answerPlainCall(opts, plain) : undefined;
}
