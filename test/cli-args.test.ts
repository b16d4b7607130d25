/** The built CLI's arguments, exit codes and shutdown. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { cliEnv, logLines, runCli, startHttp } from './helpers/spawn.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});

afterAll(() => t.drop());

describe('searchdesk CLI', () => {
  it('prints the version', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag], cliEnv());
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('prints help, globally and per command', async () => {
    const main = await runCli(['--help'], cliEnv());
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/^Usage: searchdesk/);
    expect(main.stdout).toContain('serve');
    const serve = await runCli(['serve', '--help'], cliEnv());
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/--http/);
    expect(serve.stdout).toMatch(/--port/);
  });

  const usageErrors: Array<[string[], RegExp]> = [
    [['frobnicate'], /unknown command "frobnicate"/],
    [['serve', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--stdio', '--http'], /choose one of --stdio and --http/],
    [['serve', '--port', '1'], /--host and --port need --http/],
    [['db', 'drop'], /unknown db command "drop"/],
    [['index', '--interval', '5'], /--interval needs --follow/],
    [['index', '--batch-size', '0'], /--batch-size must be 1–50000/],
  ];
  for (const [args, message] of usageErrors) {
    it(`exits 2 with one line for: searchdesk ${args.join(' ')}`, async () => {
      const r = await runCli(args, cliEnv({ DATABASE_URL: t.url }));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    });
  }

  const configErrors: Array<[string, Record<string, string>, string[], RegExp]> = [
    ['a bad PORT', { DATABASE_URL: 'postgres://x@127.0.0.1/x', PORT: 'eighty' }, ['serve', '--http'], /PORT must be an integer/],
    [
      'a bad --port',
      { DATABASE_URL: 'postgres://x@127.0.0.1/x' },
      ['serve', '--http', '--port', '99999'],
      /PORT must be an integer/,
    ],
    [
      'index without a search engine',
      { DATABASE_URL: 'postgres://x@127.0.0.1/x' },
      ['index'],
      /searchdesk index needs ELASTICSEARCH_URL or OPENSEARCH_URL/,
    ],
    [
      "index on the help desk's own index",
      { DATABASE_URL: 'postgres://x@127.0.0.1/x', OPENSEARCH_URL: 'http://127.0.0.1:1', SEARCHDESK_INDEX_FORMAT: 'searchkick' },
      ['index'],
      /does not write the help desk's own index/,
    ],
    ['db without DATABASE_URL', {}, ['db', 'indexes'], /db indexes needs DATABASE_URL/],
    [
      'both search engines',
      { DATABASE_URL: 'postgres://x@127.0.0.1/x', OPENSEARCH_URL: 'http://a:1', ELASTICSEARCH_URL: 'http://b:1' },
      ['serve', '--http'],
      /not both/,
    ],
  ];
  for (const [name, env, args, message] of configErrors) {
    it(`refuses to start with ${name}: one line on stderr, exit 2`, async () => {
      const r = await runCli(args, cliEnv(env));
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    });
  }

  it('lets --port override PORT and shuts down in order on SIGTERM with exit 0', async () => {
    const s = await startHttp(cliEnv({ DATABASE_URL: t.url, PORT: 'not-a-port' }));
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect(await s.stop()).toBe(0);
    const events = logLines(s.stderr()).map((l) => l.event);
    expect(events.indexOf('shutdown')).toBeGreaterThan(events.indexOf('listening'));
  });

  it('binds --host', async () => {
    const s = await startHttp(cliEnv({ DATABASE_URL: t.url, HOST: '0.0.0.0' }), ['--host', '127.0.0.1']);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    await s.stop();
  });
});
