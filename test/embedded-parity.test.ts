/**
 * The same demo data in PGlite and in the test server Postgres must give the same payloads for
 * the same searches: one SQL, two engines (contract: "the same SQL runs on both").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoData, DEMO_COLUMNS, type DemoTable } from '../src/db/demo-data.js';
import { buildInsert, openEmbeddedDb } from '../src/db/pglite.js';
import type { SearchDeps } from '../src/search/core.js';
import type { Operation, ReadOperation } from '../src/search/params.js';
import type { SearchResult } from '../src/search/service.js';
import { makeDeps, read, search } from './helpers/core.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';

const NOW_MS = Date.now();
const NOW = Math.floor(NOW_MS / 1000);
const DAY = 86_400;
const root = mkdtempSync(join(tmpdir(), 'searchdesk-embedded-parity-'));
let server: TestDatabase;
let pglite: SearchDeps;
let pg: SearchDeps;

beforeAll(async () => {
  const embedded = await openEmbeddedDb({ dataDir: join(root, 'data'), logger: silentLogger, now: () => NOW_MS });
  pglite = makeDeps(embedded.db, { now: () => NOW_MS });
  server = await createTestDatabase();
  const data = buildDemoData(Math.floor(NOW_MS / 1000) * 1000);
  for (const table of Object.keys(DEMO_COLUMNS) as DemoTable[]) {
    const insert = buildInsert(table, data.tables[table]);
    await server.admin.query(insert.text, insert.values);
  }
  pg = makeDeps(server.db, { now: () => NOW_MS });
}, 180_000);

afterAll(async () => {
  await pglite?.db.close();
  await server?.drop();
  rmSync(root, { recursive: true, force: true });
});

/** Outcome of a search: its payload and meta, or the error code. */
async function outcome(
  deps: SearchDeps,
  token: string,
  account: number,
  op: Operation,
  params: Record<string, unknown>,
): Promise<SearchResult | { error: string }> {
  try {
    return await search(deps, token, account, op, params);
  } catch (err) {
    return { error: (err as { code?: string }).code ?? String(err) };
  }
}

const TOKENS = [
  ['demo-admin-token', 1],
  ['demo-agent-token', 1],
  ['demo-agent2-token', 1],
  ['demo-globex-token', 2],
] as const;

const QUERIES: Array<[Operation, Record<string, unknown>]> = [
  ['contacts', { q: 'example' }],
  ['contacts', { q: 'example', page: 3 }],
  ['contacts', { q: 'MÜLLER' }],
  ['contacts', { q: 'fernández' }],
  ['contacts', { q: '+1415' }],
  ['contacts', { q: '_' }],
  ['contacts', { q: 'o', since: NOW - 30 * DAY, until: NOW - 2 * DAY }],
  ['conversations', { q: 'smith' }],
  ['conversations', { q: '1' }],
  ['conversations', { q: '1', page: 2 }],
  ['conversations', { q: 'a', since: NOW - 10 * DAY }],
  ['messages', { q: 'refund' }],
  ['messages', { q: 'refund', page: 4 }],
  ['messages', { q: 'track parcel' }],
  ['messages', { q: 'über' }],
  ['messages', { q: 'hopper' }],
  ['messages', { q: 'order', from: 'agent:2' }],
  ['messages', { q: 'order', from: 'contact:2' }],
  ['messages', { q: 'the', inbox_id: 3 }],
  ['messages', { q: 'the', since: NOW - 5 * DAY, until: NOW - DAY }],
  ['messages', { q: 'invoice', since: NOW - 91 * DAY }],
  ['articles', { q: 'password' }],
  ['articles', { q: 'zurücksetzen' }],
  ['articles', { q: 'ship' }],
  ['articles', { q: 'refund card' }],
  ['all', { q: 'bennett' }],
  ['all', { q: 'order' }],
];

describe('PGlite and server Postgres on the same demo data', () => {
  it('give the same result for every demo caller and query', async () => {
    let compared = 0;
    let withRows = 0;
    for (const [token, account] of TOKENS) {
      for (const [op, params] of QUERIES) {
        const [onPglite, onPg] = [
          await outcome(pglite, token, account, op, params),
          await outcome(pg, token, account, op, params),
        ];
        expect({ token, op, params, result: onPglite }).toEqual({ token, op, params, result: onPg });
        compared++;
        if ('payload' in onPg && Object.values(onPg.payload).some((rows: unknown[]) => rows.length > 0)) withRows++;
      }
    }
    expect(compared).toBe(TOKENS.length * QUERIES.length);
    // Not a comparison of empty lists: most searches find something.
    console.log(`[parity] ${withRows} of ${compared} searches returned rows on both`);
    expect(withRows).toBeGreaterThan(compared / 2);
  }, 120_000);

  it('read the same conversations, contacts and articles for every demo caller (issue 14)', async () => {
    const READS: Array<[ReadOperation, Record<string, unknown>]> = [
      ['get_conversation', { display_id: 273 }],
      ['get_conversation', { display_id: 275, include_activity: true }],
      ['get_conversation', { display_id: 1 }],
      ['get_conversation', { id: 330, before: 1420 }],
      ['get_conversation', { id: 330, after: 1405, include_activity: true }],
      ['get_contact', { id: 201 }],
      ['get_contact', { id: 2 }],
      ['get_article', { id: 10 }],
      ['get_article', { id: 1 }],
    ];
    let found = 0;
    for (const [token, account] of TOKENS) {
      for (const [op, params] of READS) {
        const run = (deps: SearchDeps) =>
          read(deps, token, account, op, params).catch((err: unknown) => ({ error: (err as { message?: string }).message }));
        const [onPglite, onPg] = [await run(pglite), await run(pg)];
        expect({ token, op, params, result: onPglite }).toEqual({ token, op, params, result: onPg });
        if ('body' in onPg) found++;
      }
    }
    expect(found).toBeGreaterThan(TOKENS.length * 3);
  }, 60_000);
});
