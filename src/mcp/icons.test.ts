/** The icons (issue 51, part 3): the data URIs are the files in assets/, in the shapes MCP defines. */
import { readFileSync } from 'node:fs';
import { specTypeSchemas } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ICON_PNG, ICON_SVG } from './icon-data.js';
import { SERVER_ICONS } from './icons.js';
import { TOOL_LIST } from './tool-list.js';

const file = (name: string) => readFileSync(new URL(`../../assets/${name}`, import.meta.url));
const decoded = (uri: string) => Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');

describe('icons', () => {
  it('are assets/icon.svg and assets/icon.png (run `node scripts/icons.mjs` after changing them)', () => {
    expect(decoded(ICON_SVG)).toEqual(file('icon.svg'));
    expect(decoded(ICON_PNG)).toEqual(file('icon.png'));
  });

  it('has a 256 × 256 PNG', () => {
    const png = file('icon.png');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
  });

  it('gives the server its SVG and PNG as MCP icons, and the tools none (the tools/list budget)', () => {
    for (const icon of SERVER_ICONS) expect(specTypeSchemas.Icon['~standard'].validate(icon)).toEqual({ value: icon });
    expect(SERVER_ICONS.map((i) => i.mimeType)).toEqual(['image/svg+xml', 'image/png']);
    for (const tool of TOOL_LIST) expect(tool.icons).toBeUndefined();
  });
});
