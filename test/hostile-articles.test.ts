/**
 * Articles written to stall the server (issue 49): 1 MB of unclosed tags, brackets and deep
 * nesting, searched and read over REST and MCP while `/healthz` is asked again and again. The
 * server runs as its own process (the built CLI), so a server stuck in one article fails this
 * test by its timeout instead of stalling the test's own event loop.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, readPath, restSearch, startHttp, type HttpProcess } from './helpers/spawn.js';
import { asRestBody } from './helpers/mcp-normalise.js';

const MB = 1 << 20;

/** Each kind of content repeated to 1 MB: the shapes that made the regular expressions quadratic. */
const HOSTILE: Record<string, string> = {
  'unclosed tags': 'a<b ',
  'empty links, unclosed': '[](',
  'bare tag starts': '<x',
  'open brackets': '[',
  'link ends': '](',
  'open comments': '<!--',
  'open scripts': '<script>',
  'deep nesting': '<div><p>[x',
};

let t: TestDatabase;
let server: HttpProcess;
let client: Client;
const f = { account: 0, token: '', articles: new Map<string, number>() };

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.token = await fx.token(admin);
  const portal = await fx.portal(f.account);
  for (const [kind, unit] of Object.entries(HOSTILE)) {
    const content = unit.repeat(Math.ceil(MB / unit.length));
    f.articles.set(kind, await fx.article(f.account, portal, { title: `Hostile ${kind}`, content }));
  }
  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
  client = await connectHttpMcp(server.url, { api_access_token: f.token });
}, 60_000);

afterAll(async () => {
  await client?.close();
  // A server stuck in one article does not answer SIGTERM: it is killed.
  const pid = server?.child.pid;
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 3_000))]);
  if (pid !== undefined && server.child.exitCode === null) process.kill(pid, 'SIGKILL');
  await t?.drop();
});

const headers = () => ({ api_access_token: f.token });

/** Every search and read of the hostile articles, on both surfaces, all at once. */
function hostileRequests(): Array<Promise<unknown>> {
  const requests: Array<Promise<unknown>> = [
    restSearch(server.url, f.token, f.account, 'search_articles', { q: 'hostile' }),
    client.callTool({ name: 'search_articles', arguments: { q: 'hostile' } }),
  ];
  for (const id of f.articles.values()) {
    requests.push(
      fetch(`${server.url}${readPath(f.account, 'get_article', { id })}`, { headers: headers() }).then((r) => r.json()),
    );
    requests.push(client.callTool({ name: 'get_article', arguments: { id } }));
  }
  return requests;
}

describe('a 1 MB article of unclosed markup (issue 49)', () => {
  it('is searched and read on both surfaces while /healthz keeps answering', async () => {
    let finished = false;
    const all = Promise.all(hostileRequests());
    void all.finally(() => (finished = true));
    // Ask /healthz again as soon as it answers, for as long as the articles are being worked on.
    const whileBusy: boolean[] = [];
    do {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      await health.text();
      whileBusy.push(!finished);
    } while (!finished);
    expect(whileBusy.some(Boolean)).toBe(true);

    const [rest, mcp, ...reads] = await all;
    const ids = [...f.articles.values()].sort((a, b) => a - b);
    const restArticles = (rest as { status: number; body: { payload: { articles: Array<{ id: number; snippet: string }> } } })
      .body.payload.articles;
    expect(restArticles.map((a) => a.id).sort((a, b) => a - b)).toEqual(ids);
    for (const article of restArticles) expect(article.snippet.length).toBeLessThanOrEqual(300);
    const mcpResult = mcp as CallToolResult;
    expect(mcpResult.isError).toBeFalsy();
    expect((asRestBody(mcpResult.structuredContent) as { payload: { articles: unknown[] } }).payload.articles).toEqual(
      restArticles,
    );
    for (let i = 0; i < reads.length; i += 2) {
      const restContent = (reads[i] as { payload: { content: string } }).payload.content;
      const mcpRead = reads[i + 1] as CallToolResult;
      expect(mcpRead.isError).toBeFalsy();
      // The MCP context budget may shorten the content, with a trailing `…`.
      const mcpContent = (mcpRead.structuredContent as { payload: { content: string } }).payload.content;
      expect(restContent.startsWith(mcpContent.replace(/…$/, ''))).toBe(true);
    }
  });

  it('reads unclosed markup as the text it is', async () => {
    for (const kind of ['unclosed tags', 'empty links, unclosed']) {
      const unit = HOSTILE[kind]!;
      const res = await fetch(`${server.url}${readPath(f.account, 'get_article', { id: f.articles.get(kind)! })}`, {
        headers: headers(),
      });
      const body = (await res.json()) as { payload: { content: string } };
      expect(body.payload.content).toBe(unit.repeat(Math.ceil(MB / unit.length)).trim());
    }
  });
});
