/**
 * searchdesk's icons as MCP `Icon`s (protocol 2025-11-25: `serverInfo.icons`, `Tool.icons`).
 * Data URIs: a stdio server has no URL to serve them from, and a client needs no network to
 * show them. The server's are the icon itself (assets/icon.svg, and its 256 px PNG, the format
 * every client that shows icons must read); each tool carries only a small magnifier, as
 * tools/list is sent to the model and every byte of it counts against its context.
 */
import type { Icon } from '@modelcontextprotocol/sdk/types.js';
import { ICON_PNG, ICON_SVG } from './icon-data.js';

export const SERVER_ICONS: readonly Icon[] = [
  { src: ICON_SVG, mimeType: 'image/svg+xml', sizes: ['any'] },
  { src: ICON_PNG, mimeType: 'image/png', sizes: ['256x256'] },
];

/**
 * A magnifier in the icon's colour, one stroked path (numbers split by commas, which a URI may hold): about 250 characters a tool (type and size
 * are left to the data URI: an SVG is any size). Only what a URI may not hold is escaped.
 */
const MAGNIFIER =
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0,0,16,16'><path d='M6.5,2a4.5,4.5,0,1,0,0,9,4.5,4.5,0,0,0,0-9zm3.5,8,4,4' fill='none' stroke='#0f766e' stroke-width='2.2' stroke-linecap='round'/></svg>";

export const TOOL_ICONS: readonly Icon[] = [
  {
    src: `data:image/svg+xml,${MAGNIFIER.replace(/[<>#%\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}`,
  },
];
