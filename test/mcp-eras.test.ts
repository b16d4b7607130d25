/**
 * Both protocol eras, both transports (issue 51, part 2): the v1 client (`@modelcontextprotocol/sdk`
 * 1.x, what Claude Desktop, Claude Code and the MCP Inspector CLI speak) and the v2 client
 * (`@modelcontextprotocol/client` 2.x) in each of its negotiation modes, over stdio (the built
 * CLI, spawned) and over Streamable HTTP. Each does tools/list, a search, a read and a tool error
 * (and over HTTP a refused token); the results are compared byte for byte with the v1 client's,
 * after removing `meta.now` (the time of the call) — nothing else may differ between eras.
 *
 * The 2026-07-28 revision (the v2 client pinned to it, and in auto mode, which probes
 * `server/discover` and stays on it) is answered by `@modelcontextprotocol/server` 2.x
 * (src/mcp/modern.ts). What that revision itself adds to every result (`resultType` and the
 * server's identity in `_meta`) is the one difference allowed, and is checked to be there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { createTestDatabase, type TestDatabase } from './helpers/db.js';
import { Fixture } from './helpers/fixtures.js';
import { startHttp, type HttpProcess } from './helpers/http.js';
import { assertBuilt, CLI, cliEnv } from './helpers/spawn.js';

let t: TestDatabase;
let http: HttpProcess;
const f = {} as { account: number; admin: string; contact: number };

beforeAll(async () => {
  assertBuilt();
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  f.account = await fx.account();
  const admin = await fx.user();
  await fx.member(f.account, admin, 'administrator');
  f.admin = await fx.token(admin);
  f.contact = await fx.contact(f.account, { name: 'Era Erin', email: 'erin@eras.example' });
  http = await startHttp(cliEnv({ DATABASE_URL: t.url }));
});

afterAll(async () => {
  await http?.stop();
  await t?.drop();
});

/** What each client does; every answer as the JSON text a host would see. */
interface Answers {
  identity: string;
  tools: string;
  search: string;
  read: string;
  toolError: string;
}

/** The calls every client makes, whatever its SDK (both have listTools and callTool). */
interface AnyClient {
  getServerVersion(): unknown;
  getInstructions(): string | undefined;
  listTools(): Promise<{ tools: unknown[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * What the 2026-07-28 revision adds to every result: the server's identity in `_meta` (and its
 * `resultType`, which the v2 client reads and may leave out of what it returns).
 */
const MODERN_ADDITIONS = { resultType: 'complete', serverInfoKey: 'io.modelcontextprotocol/serverInfo' };
/** How many results carried the 2026-07-28 additions (each one is removed by `stable`). */
let modernResults = 0;

/** A result with `meta.now` (the time of the call) and the 2026-07-28 additions taken out, serialised. */
function stable(result: unknown): string {
  type Result = {
    structuredContent?: { meta?: Record<string, unknown> };
    content?: Array<{ text?: string }>;
    resultType?: string;
    _meta?: Record<string, unknown>;
  };
  const copy = structuredClone(result as Result);
  if (copy._meta?.[MODERN_ADDITIONS.serverInfoKey] !== undefined) {
    expect(copy._meta[MODERN_ADDITIONS.serverInfoKey]).toMatchObject({ name: 'searchdesk', version: expect.any(String) });
    if (copy.resultType !== undefined) expect(copy.resultType).toBe(MODERN_ADDITIONS.resultType);
    delete copy.resultType;
    delete copy._meta?.[MODERN_ADDITIONS.serverInfoKey];
    if (copy._meta && Object.keys(copy._meta).length === 0) delete copy._meta;
    modernResults++;
  }
  if (copy.structuredContent?.meta) delete copy.structuredContent.meta.now;
  if (copy.content?.[0]?.text?.startsWith('{')) {
    const parsed = JSON.parse(copy.content[0].text) as { meta?: Record<string, unknown> };
    if (parsed.meta) delete parsed.meta.now;
    copy.content[0].text = JSON.stringify(parsed);
  }
  return JSON.stringify(copy);
}

async function ask(client: AnyClient): Promise<Answers> {
  try {
    const { tools } = await client.listTools();
    return {
      identity: JSON.stringify({ server: client.getServerVersion(), instructions: client.getInstructions() }),
      tools: JSON.stringify(tools),
      search: stable(await client.callTool({ name: 'search_contacts', arguments: { q: 'Era Erin', account_id: f.account } })),
      read: stable(await client.callTool({ name: 'get_contact', arguments: { id: f.contact, account_id: f.account } })),
      toolError: stable(await client.callTool({ name: 'get_contact', arguments: { id: 999_999_999, account_id: f.account } })),
    };
  } finally {
    await client.close();
  }
}

const stdioEnv = () => cliEnv({ DATABASE_URL: t.url, SEARCHDESK_ACCESS_TOKEN: f.admin });
const mcpUrl = () => new URL('/mcp', http.url);
const auth = (token: string) => ({ requestInit: { headers: { api_access_token: token } } });

type Mode = 'legacy' | 'auto' | { pin: string };
const MODERN = { pin: '2026-07-28' };

async function v1Stdio(): Promise<AnyClient> {
  const client = new ClientV1({ name: 'eras-v1', version: '0.0.0' });
  await client.connect(new StdioV1({ command: process.execPath, args: [CLI], env: stdioEnv(), stderr: 'ignore' }));
  return client;
}

async function v2Stdio(mode: Mode): Promise<AnyClient> {
  const client = new ClientV2({ name: 'eras-v2', version: '0.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StdioV2({ command: process.execPath, args: [CLI], env: stdioEnv(), stderr: 'ignore' }));
  return client;
}

async function v1Http(token = f.admin): Promise<AnyClient> {
  const client = new ClientV1({ name: 'eras-v1', version: '0.0.0' });
  await client.connect(new HttpV1(mcpUrl(), auth(token)));
  return client;
}

async function v2Http(mode: Mode, token = f.admin): Promise<AnyClient> {
  const client = new ClientV2({ name: 'eras-v2', version: '0.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new HttpV2(mcpUrl(), auth(token)));
  return client;
}

describe('both eras answer alike over stdio and HTTP', () => {
  let reference: Answers;

  beforeAll(async () => {
    reference = await ask(await v1Stdio());
  });

  it('the reference answers are what a host needs: ten tools, the contact found and read, a tool error', () => {
    expect((JSON.parse(reference.tools) as unknown[]).length).toBe(10);
    expect(reference.search).toContain('Era Erin');
    expect(reference.read).toContain('erin@eras.example');
    expect(JSON.parse(reference.toolError)).toMatchObject({ isError: true });
  });

  const clients: Array<[string, () => Promise<AnyClient>, boolean?]> = [
    ['v1 client over HTTP', () => v1Http()],
    ['v2 client (legacy mode) over stdio', () => v2Stdio('legacy')],
    ['v2 client (legacy mode) over HTTP', () => v2Http('legacy')],
    ['v2 client (auto mode: probes server/discover, stays on 2026-07-28) over stdio', () => v2Stdio('auto'), true],
    ['v2 client (auto mode) over HTTP', () => v2Http('auto'), true],
    ['v2 client pinned to 2026-07-28 over stdio', () => v2Stdio(MODERN), true],
    ['v2 client pinned to 2026-07-28 over HTTP', () => v2Http(MODERN), true],
  ];
  for (const [name, connect, modern] of clients) {
    it(`${name}: identity, tools/list, a search, a read and a tool error byte-identical to the v1 client over stdio`, async () => {
      const before = modernResults;
      expect(await ask(await connect())).toEqual(reference);
      // Each of the three tool results carried the 2026-07-28 additions, or none did.
      expect(modernResults - before).toBe(modern ? 3 : 0);
    });
  }
});

describe('a refused token over HTTP, in each era', () => {
  const body = JSON.stringify({ error: 'Invalid Access Token' });

  it('the v1 client and the v2 client (legacy, auto and pinned to 2026-07-28) all fail to connect with the same 401 body', async () => {
    const v1 = await v1Http('nope').then(
      () => undefined,
      (err: unknown) => err as { code?: number; message?: string },
    );
    expect(v1?.code).toBe(401);
    expect(v1?.message?.endsWith(body)).toBe(true);
    for (const mode of ['legacy', 'auto', MODERN] as const) {
      const v2 = await v2Http(mode, 'nope').then(
        () => undefined,
        (err: unknown) => err as { status?: number; data?: { text?: string } },
      );
      expect(v2?.status, JSON.stringify(mode)).toBe(401);
      expect(v2?.data?.text, JSON.stringify(mode)).toBe(body);
    }
  });
});
