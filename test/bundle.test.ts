/**
 * The release bundle (scripts/build.mjs): the tools/list it answers is exactly what toolDefs
 * (src/mcp/tools.ts, the single source of truth) gives, its chunks stay beside dist/cli.js with
 * their assets, and stack traces can be mapped back (source maps). Needs `npm run build`.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_LIST } from '../src/mcp/tool-list.js';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { assertBuilt, CLI, cliEnv, connectStdio, initializeRequest, runCli } from './helpers/spawn.js';

const DIST = join(CLI, '..');
let t: TestDatabase;
let token: string;

beforeAll(async () => {
  assertBuilt();
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  const account = await fx.account();
  const user = await fx.user();
  await fx.member(account, user, 'administrator');
  token = await fx.token(user);
});
afterAll(() => t.drop());

describe('release bundle', () => {
  it('ships the tool list computed from toolDefs (with their icons) at build time', () => {
    const shipped = JSON.parse(readFileSync(join(DIST, 'tools.json'), 'utf8')) as unknown;
    expect(shipped).toEqual(JSON.parse(JSON.stringify(TOOL_LIST)));
  });

  it('answers tools/list over stdio with DATABASE_URL set with exactly the toolDefs tools', async () => {
    const s = await connectStdio(cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: token }));
    try {
      const listed = await s.client.listTools();
      expect(listed.tools).toEqual(JSON.parse(JSON.stringify(TOOL_LIST)));
      const called = await s.client.callTool({ name: 'search_contacts', arguments: { q: 'nobody-here' } });
      expect(called.isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  it('starts stdio without what only tool calls or other commands need (zod, HTTP, PGlite, engines)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'searchdesk-loads-'));
    const loads = join(dir, 'loads.txt');
    const hook = fileURLToPath(new URL('./helpers/record-loads.mjs', import.meta.url));
    const lines = [
      initializeRequest(),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    try {
      const r = await runCli(
        [],
        cliEnv({
          DATABASE_URL: t.url,
          SEARCHDESK_ACCESS_TOKEN: token,
          NODE_OPTIONS: `--import=${hook}`,
          SEARCHDESK_TEST_LOADS: loads,
        }),
        lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('"tools":[');
      const loaded = readFileSync(loads, 'utf8').trim().split('\n');
      const files = loaded.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
      expect(files.some((f) => f.endsWith('stdio-caller.js') || /stdio-caller-\w+\.js$/.test(f))).toBe(true);
      for (const file of files) {
        expect(file, 'only the bundle is loaded from disk').toMatch(/[\\/]dist[\\/][\w-]+\.js$/);
        const code = readFileSync(file, 'utf8');
        expect(code, `${file}: zod (the tool schemas)`).not.toContain('$constructor("$ZodType"');
        expect(code, `${file}: the HTTP server`).not.toContain('createServer');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is an ESM entry with its chunks, source maps and SQL assets beside it', () => {
    const files = readdirSync(DIST);
    const entry = readFileSync(CLI, 'utf8');
    expect(entry.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(entry).toMatch(/sourceMappingURL=cli\.js\.map/);
    for (const f of files.filter((name) => name.endsWith('.js'))) expect(files).toContain(`${f}.map`);
    expect(existsSync(join(DIST, 'sql', 'schema.sql'))).toBe(true);
    // No stale per-module output of the old tsc build next to the bundle.
    expect(files).not.toContain('search');
  });
});
