/**
 * The `tools/list` answer: the MCP `Tool` JSON of every entry of toolDefs (tools.ts, the single
 * source of truth), The release build (scripts/build.mjs) evaluates this module at build time and
 * ships the result as JSON (dist/tools.json, inlined into the bundle), so a start neither builds
 * the zod schemas nor converts them; from source it is computed on import, once.
 */
import type { Tool } from '@modelcontextprotocol/server';
import { TOOLS } from './tools.js';

/** No per-tool icons: ten copies of even a small one cost a tenth of the tools/list budget (README, Icons). */
export const TOOL_LIST: readonly Tool[] = TOOLS;
