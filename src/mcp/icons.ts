/**
 * searchdesk's icons as MCP `Icon`s (protocol 2025-11-25: `serverInfo.icons`). Data URIs: a
 * stdio server has no URL to serve them from, and a client needs no network to show them: the
 * icon itself (assets/icon.svg) and its 256 px PNG, the format every client that shows icons
 * must read. Tools carry none: tools/list is sent to the model, and ten copies of even a small
 * icon would take a tenth of its 25,000-character budget (contract §10).
 */
import type { Icon } from '@modelcontextprotocol/server';
import { ICON_PNG, ICON_SVG } from './icon-data.js';

export const SERVER_ICONS: readonly Icon[] = [
  { src: ICON_SVG, mimeType: 'image/svg+xml', sizes: ['any'] },
  { src: ICON_PNG, mimeType: 'image/png', sizes: ['256x256'] },
];
