/**
 * The install path, end to end (issue 51, part 4): `npm pack` the built package, install the
 * tarball in an empty project, and start the installed `searchdesk` binary over stdio from there,
 * with nothing of the checkout on PATH or as the working directory, on the embedded demo. Slow
 * (npm installs PGlite and the search-engine clients; `--prefer-offline` uses npm's cache when it
 * has them). Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './helpers/spawn.js';

const CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'searchdesk-install-'));
const project = join(root, 'project');
const VERSION = (JSON.parse(readFileSync(join(CHECKOUT, 'package.json'), 'utf8')) as { version: string }).version;
/** npm, run by the same Node as the tests. */
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}
let packed: Packed;

beforeAll(() => {
  assertBuilt();
  const out = execFileSync(NPM, ['pack', '--json', '--pack-destination', root], { cwd: CHECKOUT, encoding: 'utf8' });
  packed = (JSON.parse(out) as Packed[])[0]!;
  console.log(
    `[install] ${packed.filename}: packed ${(packed.size / 1024).toFixed(1)} kB, unpacked ${(packed.unpackedSize / 1024).toFixed(1)} kB, ${packed.files.length} files`,
  );
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'try-searchdesk', private: true })}\n`);
  execFileSync(NPM, ['install', join(root, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds the bundle, server.json and the README, and no sources or tests', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/cli.js', 'dist/sql/schema.sql', 'server.json', 'README.md', 'package.json']),
    );
    expect(paths.filter((p) => /^(src|test|bench|scripts)\//.test(p))).toEqual([]);
  });

  it('installs with only its runtime dependencies and answers tools/list and a search over stdio', async () => {
    const bin = join(project, 'node_modules', '.bin', 'searchdesk');
    expect(existsSync(bin)).toBe(true);
    // Bundled at build time, so not installed by the package (the search-engine clients are).
    for (const bundled of ['zod', 'pino', 'prom-client'])
      expect(existsSync(join(project, 'node_modules', bundled)), bundled).toBe(false);

    // PATH: this Node and the system's tools only; the working directory is the new project.
    const env = {
      PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      HOME: join(root, 'home'),
      SEARCHDESK_DATA_DIR: join(root, 'data'),
      LOG_LEVEL: 'warn',
    };
    expect(env.PATH).not.toContain(CHECKOUT);
    const transport = new StdioClientTransport({ command: bin, args: [], env, cwd: project, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'searchdesk-install-test', version: '0.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: 'searchdesk', version: VERSION });
      expect(client.getServerVersion()?.icons?.map((i) => i.mimeType)).toEqual(['image/svg+xml', 'image/png']);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('search_contacts');
      const found = await client.callTool({ name: 'search_contacts', arguments: { q: 'anderson' } });
      expect(found.isError ?? false, stderr).toBe(false);
      const { payload } = found.structuredContent as { payload: { contacts: Array<{ name: string }> } };
      expect(payload.contacts.length).toBeGreaterThan(0);
      expect(payload.contacts.every((c) => /anderson/i.test(c.name))).toBe(true);
    } finally {
      await client.close();
    }
  }, 120_000);
});
