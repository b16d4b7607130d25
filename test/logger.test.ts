/**
 * The logger writes asynchronously (src/logger.ts) and loses no line at the end: a process that
 * logs a burst and then exits — by process.exit, by running out of work, or by an uncaught
 * exception — has every line on stderr. The child is src/logger.ts bundled as the release is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const LINES = 20_000;
let dir: string;
let script: string;

const entry = `
import { createLogger, flushLogger } from './src/logger.ts';
const logger = createLogger('info');
const how = process.argv[2];
const pad = 'x'.repeat(150);
for (let i = 0; i < ${LINES}; i++) logger.info({ event: 'burst', i, pad, token: 'secret-token' }, 'line');
if (how === 'exit') process.exit(3);
if (how === 'throw') throw new Error('fatal: unexpected');
if (how === 'reject') Promise.reject(new Error('fatal: unhandled rejection'));
if (how === 'flush') { flushLogger(logger); process.stderr.write('{"event":"after_flush"}\\n'); process.exit(0); }
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sd-logger-'));
  script = join(dir, 'burst.mjs');
  await build({
    stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'burst.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: script,
    logLevel: 'silent',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(how: string) {
  const r = spawnSync(process.execPath, [script, how], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('{"level"'));
  const seen = new Set(lines.map((l) => (JSON.parse(l) as { i: number }).i));
  return { status: r.status, stderr: r.stderr, lines, seen };
}

describe('asynchronous logger: no line lost at the end', () => {
  for (const [how, status] of [
    ['exit', 3],
    ['end', 0],
    ['throw', 1],
    ['reject', 1],
  ] as const) {
    it(`keeps all ${LINES} lines of a burst when the process ends by ${how}`, () => {
      const r = run(how);
      expect(r.status).toBe(status);
      expect(r.lines).toHaveLength(LINES);
      expect(r.seen.size).toBe(LINES);
      expect(r.stderr).not.toContain('secret-token');
      if (how === 'throw') expect(r.stderr).toContain('fatal: unexpected');
    });
  }

  it('flushLogger writes every queued line before it returns', () => {
    const r = run('flush');
    expect(r.status).toBe(0);
    const after = r.stderr.indexOf('{"event":"after_flush"}');
    expect(after).toBeGreaterThan(0);
    expect(
      r.stderr
        .slice(0, after)
        .split('\n')
        .filter((l) => l.startsWith('{"level"')),
    ).toHaveLength(LINES);
  });
});

describe('redaction generated from the settings schema', () => {
  it('never writes a secret setting, logged as a variable or as a config field', async () => {
    const { createLogger } = await import('../src/logger.js');
    const { loadConfig } = await import('../src/config.js');
    const { SECRET_ENV } = await import('../src/config/settings.js');
    expect(SECRET_ENV).toEqual(expect.arrayContaining(['DATABASE_URL', 'SEARCHDESK_ACCESS_TOKEN']));
    const env = { DATABASE_URL: 'postgres://u:pg-secret@db/helpdesk', SEARCHDESK_ACCESS_TOKEN: 'stdio-secret', PORT: '8080' };
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    logger.info(env, 'env at top level');
    logger.info({ env }, 'env one level down');
    logger.info({ config: loadConfig(env) }, 'config');
    logger.info(loadConfig(env), 'config at top level');
    const out = lines.join('');
    expect(lines).toHaveLength(4);
    expect(out).not.toContain('pg-secret');
    expect(out).not.toContain('stdio-secret');
    expect(out).toContain('8080'); // only secrets are hidden
  });
});

describe('redaction of tokens', () => {
  it('hides a token three levels down, in arrays and in child bindings, and leaves the rest as logged', async () => {
    const { createLogger } = await import('../src/logger.js');
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const logged = { req: { headers: { authorization: 'Bearer tok-1', api_access_token: 'tok-2', host: 'example.test' } } };
    logger.info(logged, 'headers');
    logger.info({ calls: [{ token: 'tok-3', tool: 'search_messages' }] }, 'array');
    logger.child({ token: 'tok-4', route: '/mcp' }).info({ auth: { token: 'tok-5' } }, 'child');
    const out = lines.join('');
    for (const secret of ['tok-1', 'tok-2', 'tok-3', 'tok-4', 'tok-5']) expect(out).not.toContain(secret);
    expect(out).toContain('example.test');
    expect(out).toContain('search_messages');
    expect(out).toContain('/mcp');
    expect(out.match(/\[redacted\]/g)).toHaveLength(5);
    // The caller's object is not changed.
    expect(logged.req.headers.authorization).toBe('Bearer tok-1');
  });

  it('copies nothing when a line holds no secret, and leaves an error to its serializer', async () => {
    const { redactSecrets } = await import('../src/logger.js');
    const line = { event: 'http_request', status: 200, counts: { messages: 15 }, tools: ['a', 'b'] };
    expect(redactSecrets(line)).toBe(line);
    const err = Object.assign(new Error('boom'), { code: 'X' });
    expect(redactSecrets({ err }).err).toBe(err);
  });
});
