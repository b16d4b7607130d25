/** The MCP bundle manifest: valid for `mcpb validate`, and in step with the package and the tools. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolDefs } from '../src/mcp/tools.js';

const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as {
  version: string;
  manifest_version: string;
  tools: Array<{ name: string }>;
  user_config: Record<string, { sensitive?: boolean }>;
  server: { entry_point: string };
  icon: string;
};
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; bin: Record<string, string> };

describe('manifest.json (MCP bundle)', () => {
  it('passes mcpb validate', () => {
    const out = execFileSync(process.execPath, ['node_modules/@anthropic-ai/mcpb/dist/cli/cli.js', 'validate', 'manifest.json'], {
      encoding: 'utf8',
    });
    expect(out).toContain('Manifest schema validation passes');
  });

  it('lists exactly the tools of the server and matches the package version and entry point', () => {
    expect(manifest.manifest_version).toBe('0.3');
    expect(manifest.tools.map((t) => t.name)).toEqual(toolDefs.map((t) => t.name));
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.server.entry_point).toBe(pkg.bin.searchdesk);
  });

  it('shows the 256 px PNG icon, which the bundle script copies into the bundle', () => {
    expect(manifest.icon).toBe('assets/icon.png');
    const png = readFileSync(manifest.icon);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
    expect(readFileSync('scripts/pack-mcpb.sh', 'utf8')).toMatch(/^cp -R dist assets /m);
  });

  it('marks the database URL and the access token as sensitive', () => {
    expect(manifest.user_config.database_url?.sensitive).toBe(true);
    expect(manifest.user_config.access_token?.sensitive).toBe(true);
  });
});
