/**
 * The CPU an article written to stall the server costs (issue 49): 1 MB of unclosed tags,
 * brackets and deep nesting, turned into a search snippet and into the text get_article returns.
 *
 * - core: CPU ms (process.cpuUsage) of `buildSnippet` (a search's text work for one article) and
 *   `toArticleText` (a read's), median of `--reps`, in this process;
 * - server (with `--database-url`): the database is filled with one account and one article of
 *   each kind, then `node dist/cli.js serve --http` is searched (REST `search/articles`, the
 *   article's own title word) and read (REST `articles/{id}`) `--reps` times per kind. Reported:
 *   the server's CPU per call, main thread (`/proc/<pid>/task/<pid>/schedstat`, ns) and whole
 *   process (`/proc/<pid>/stat`, 10 ms ticks over all calls), and the longest wait of a
 *   `/healthz` asked again and again while those calls ran.
 *
 * Run: `npm run bench:text -- [--database-url URL] [--reps N] [--force]`. The database is
 * created if missing; one whose tables hold rows is refused unless `--force`, which truncates them.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { toArticleText } from '../src/search/read/article.js';
import { buildSnippet } from '../src/search/snippet.js';
import { ensureDatabase, ensureEmpty, ensureSchema } from './generator/database.js';
import { serverCliEnv, startServer } from './perf/server.js';
import { median } from './perf/stats.js';

const MB = 1 << 20;

/** Each kind of content, repeated to 1 MB: the shapes that made the regular expressions quadratic. */
const KINDS: Record<string, string> = {
  'unclosed tags `a<b `': 'a<b ',
  'empty links `[](`': '[](',
  'tag starts `<x`': '<x',
  'brackets `[`': '[',
  'link ends `](`': '](',
  'comments `<!--`': '<!--',
  'scripts `<script>`': '<script>',
  'nesting `<div><p>[x`': '<div><p>[x',
  'ordinary HTML': '<p>Open <a href="https://x.example/a">the page</a> and <b>save</b> &amp; close.</p>\n',
};

const content = (unit: string) => unit.repeat(Math.ceil(MB / unit.length));

/** CPU ms (user + system) of one call of `work`. */
function cpuOf(work: () => unknown): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function coreRows(reps: number): string[] {
  const rows = ['| content (1 MB) | search: snippet, CPU ms | read: article text, CPU ms |', '|---|---:|---:|'];
  for (const [kind, unit] of Object.entries(KINDS)) {
    const text = content(unit);
    const snippet: number[] = [];
    const read: number[] = [];
    for (let i = 0; i < reps; i++) {
      snippet.push(cpuOf(() => buildSnippet(text, ['hostile'])));
      read.push(cpuOf(() => toArticleText(text)));
    }
    rows.push(`| ${kind} | ${median(snippet).toFixed(1)} | ${median(read).toFixed(1)} |`);
  }
  return rows;
}

/** ns the main thread of `pid` has run so far. */
function mainThreadNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

/** CPU ms (user + system, every thread) `pid` has used so far, in 10 ms ticks. */
function processMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Fixture {
  token: string;
  account: number;
  articles: Array<{ kind: string; id: number; word: string }>;
}

async function fill(url: string, force: boolean): Promise<Fixture> {
  await ensureDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await ensureSchema(pool);
    await ensureEmpty(pool, force);
    const one = async (sql: string, values: unknown[]) => Number((await pool.query<{ id: string }>(sql, values)).rows[0]!.id);
    const account = await one(`INSERT INTO accounts (name, status, feature_flags) VALUES ('Hostile', 0, 0) RETURNING id`, []);
    const user = await one(`INSERT INTO users (name, email) VALUES ('Bench', 'bench@example.test') RETURNING id`, []);
    await pool.query('INSERT INTO account_users (account_id, user_id, role) VALUES ($1, $2, 1)', [account, user]);
    const token = 'bench-article-text-token';
    await pool.query(`INSERT INTO access_tokens (owner_type, owner_id, token) VALUES ('User', $1, $2)`, [user, token]);
    const portal = await one(`INSERT INTO portals (account_id, name, slug) VALUES ($1, 'Help', 'help') RETURNING id`, [account]);
    const articles: Fixture['articles'] = [];
    for (const [i, [kind, unit]] of Object.entries(KINDS).entries()) {
      const word = `hostile${String.fromCharCode(97 + i)}`;
      const id = await one(
        `INSERT INTO articles (account_id, portal_id, title, content, status, locale, slug, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 1, 'en', $5, now(), now()) RETURNING id`,
        [account, portal, `${word} article`, content(unit), word],
      );
      articles.push({ kind, id, word });
    }
    return { token, account, articles };
  } finally {
    await pool.end();
  }
}

/** Runs `calls` one after another while /healthz is asked again as soon as it answers; its longest wait, ms. */
async function withHealthz(url: string, calls: () => Promise<void>): Promise<number> {
  let done = false;
  let longest = 0;
  const poll = (async () => {
    while (!done) {
      const start = performance.now();
      await (await fetch(`${url}/healthz`)).text();
      longest = Math.max(longest, performance.now() - start);
    }
  })();
  await calls();
  done = true;
  await poll;
  return longest;
}

async function serverRows(url: string, force: boolean, reps: number): Promise<string[]> {
  const f = await fill(url, force);
  const server = await startServer(serverCliEnv({ DATABASE_URL: url }));
  const headers = { api_access_token: f.token };
  const rows = [
    '| content (1 MB) | call | main thread CPU ms | process CPU ms | longest /healthz wait, ms |',
    '|---|---|---:|---:|---:|',
  ];
  try {
    const base = `${server.url}/api/v1/accounts/${f.account}`;
    for (const a of f.articles) {
      for (const [call, path] of [
        ['search', `${base}/search/articles?q=${a.word}`],
        ['read', `${base}/articles/${a.id}`],
      ] as const) {
        await (await fetch(path, { headers })).text(); // warm-up
        const once = async () => {
          const res = await fetch(path, { headers });
          await res.text();
          if (res.status !== 200) throw new Error(`${call} ${a.kind}: HTTP ${res.status}`);
        };
        // The CPU first, alone (a /healthz answered meanwhile would count); then the waits of /healthz.
        const thread: number[] = [];
        const before = processMs(server.pid);
        for (let i = 0; i < reps; i++) {
          const start = mainThreadNs(server.pid);
          await once();
          thread.push((mainThreadNs(server.pid) - start) / 1e6);
        }
        const perCall = (processMs(server.pid) - before) / reps;
        const healthz = await withHealthz(server.url, async () => {
          for (let i = 0; i < reps; i++) await once();
        });
        rows.push(`| ${a.kind} | ${call} | ${median(thread).toFixed(1)} | ${perCall.toFixed(1)} | ${healthz.toFixed(1)} |`);
      }
    }
  } finally {
    await server.stop();
  }
  return rows;
}

const { values: opts } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    reps: { type: 'string', default: '9' },
    force: { type: 'boolean', default: false },
  },
});
const reps = Math.max(3, Number(opts.reps));
const out = ['### Core: the text work of one 1 MB article', '', ...coreRows(reps)];
if (opts['database-url']) {
  out.push('', '### Server: one 1 MB article searched or read over REST', '');
  out.push(...(await serverRows(opts['database-url'], opts.force, reps)));
}
process.stdout.write(`${out.join('\n')}\n`);
