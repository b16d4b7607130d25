/**
 * The `tools/list` answer: the MCP `Tool` JSON of every entry of toolDefs (tools.ts, the single
 * source of truth), each with the tools' icon (icons.ts). The release build (scripts/build.mjs) evaluates this module at build time and
 * ships the result as JSON (dist/tools.json, inlined into the bundle), so a start neither builds
 * the zod schemas nor converts them; from source it is computed on import, once.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_ICONS } from './icons.js';
import { TOOLS } from './tools.js';

export const TOOL_LIST: readonly Tool[] = TOOLS.map((tool) => ({ ...tool, icons: [...TOOL_ICONS] }));
