/**
 * The triage measurements (issue 48), shared by `npm run bench:triage` and `npm run bench`:
 * list_conversations over a sample of filter and sort combinations and get_account, for an
 * administrator and an agent, through MCP over HTTP (a running server, one SDK client per role,
 * warm, concurrency 1), through searchdesk's core alone (the request pipeline, records and counts
 * included, on its own Db) and, for the list, as the help desk's own statements for the same list
 * as its ConversationFinder issues them (helpdeskListStatements). Nothing is written.
 */
import type { TriageRow as TriageRecordRow } from '../record/types.js';
import pg from 'pg';
import type { Client } from '@modelcontextprotocol/client';
import { createPgDb, warmUpOnConnect } from '../../src/db/pg.js';
import type { Db } from '../../src/db/db.js';
import { createLogger } from '../../src/logger.js';
import { withAccessCache, type SearchDeps } from '../../src/search/core.js';
import { listConversationsParamsSchema, type ListConversationsParams } from '../../src/search/list-params.js';
import { parseWith } from '../../src/search/params.js';
import { handle } from '../../src/search/pipeline.js';
import { createPostgresEngine } from '../../src/search/messages/postgres.js';
import { DIRECTORY_ADMIN_TOKEN, DIRECTORY_AGENT_TOKEN } from '../generator/org.js';
import { helpdeskListStatements } from './helpdesk.js';
import { connectHttp } from './server.js';
import { quantile } from './stats.js';

/** The labels a run names: BUSY and RARE stand for its busy and rare label titles. */
const BUSY = '\u0000busy';
const RARE = '\u0000rare';

/** The sampled combinations: the big ones first (all open, unassigned, one busy label, waiting longest). */
export const TRIAGE_COMBINATIONS: ReadonlyArray<{ name: string; args: ListConversationsParams }> = [
  { name: 'all open (default)', args: {} },
  { name: 'open, unassigned', args: { assignee_type: 'unassigned' } },
  { name: 'open, mine', args: { assignee_type: 'me' } },
  { name: 'open, busy label', args: { labels: [BUSY] } },
  {
    name: 'open, busy label, unassigned, waiting longest',
    args: { labels: [BUSY], assignee_type: 'unassigned', sort_by: 'waiting_since_asc' },
  },
  { name: 'open, one rare label', args: { labels: [RARE] } },
  { name: 'open, two rare labels', args: { labels: [RARE, RARE] } },
  { name: 'open, waiting longest', args: { sort_by: 'waiting_since_asc' } },
  { name: 'open, unassigned, waiting longest', args: { assignee_type: 'unassigned', sort_by: 'waiting_since_asc' } },
  { name: 'open, urgent first', args: { sort_by: 'priority_desc' } },
  { name: 'open, unattended', args: { conversation_type: 'unattended' } },
  { name: 'open, priority urgent', args: { priority: 'urgent' } },
  // The caller's first inbox (set per role).
  { name: 'open, one inbox', args: { inbox_id: 0 } },
  { name: 'open, one team', args: { team_id: 3 } },
  { name: 'resolved, created newest', args: { status: 'resolved', sort_by: 'created_at_desc' } },
  { name: 'all statuses', args: { status: 'all' } },
  { name: 'open, page 20', args: { page: 20 } },
];

/** A combination's arguments with the run's labels and the caller's first inbox in place. */
function concrete(args: ListConversationsParams, busy: string, rare: string[], firstInbox: number): ListConversationsParams {
  const out = { ...args };
  if (args.inbox_id === 0) out.inbox_id = firstInbox;
  if (args.labels) {
    const rares = [...rare];
    out.labels = args.labels.map((l) => (l === BUSY ? busy : (rares.shift() ?? rare[0] ?? busy)));
  }
  return out;
}

export interface TriageOptions {
  /** The database the core and the help desk's statements read. */
  databaseUrl: string;
  /** A running server's base URL: measured over MCP too when set. */
  serverUrl?: string;
  reps: number;
  /** The account listed, with its administrator's and an agent's tokens. */
  accountId: number;
  adminToken: string;
  agentToken: string;
  busyLabel: string;
  rareLabels: string[];
  /** An account get_account is measured in too (the bench's directory account). */
  directory?: { accountId: number; adminToken: string; agentToken: string };
}

/** p50 / p95 ms of one side. */
export interface Quantiles {
  p50: number;
  p95: number;
}

export interface TriageRow {
  role: 'admin' | 'agent' | 'both';
  name: string;
  mcp?: Quantiles;
  core: Quantiles;
  helpdesk?: Quantiles;
  /** The list's rows and all_count (list rows only). */
  rows?: number;
  allCount?: number;
}

export interface TriageResults {
  rows: TriageRow[];
  /** Whether the MCP column was measured. */
  mcp: boolean;
}

const quantiles = (xs: number[]): Quantiles => ({ p50: quantile(xs, 0.5), p95: quantile(xs, 0.95) });

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

interface Sides {
  mcp?: () => Promise<unknown>;
  core: () => Promise<unknown>;
  helpdesk?: () => Promise<unknown>;
}

interface Samples {
  mcp: number[];
  core: number[];
  helpdesk: number[];
}

/** One warm-up each, then `reps` rounds of MCP, core and help desk one after the other. */
async function measure(sides: Sides, reps: number): Promise<Samples> {
  await sides.mcp?.();
  await sides.core();
  await sides.helpdesk?.();
  const out: Samples = { mcp: [], core: [], helpdesk: [] };
  for (let i = 0; i < reps; i++) {
    if (sides.mcp) out.mcp.push(await time(sides.mcp));
    out.core.push(await time(sides.core));
    if (sides.helpdesk) out.helpdesk.push(await time(sides.helpdesk));
  }
  return out;
}

/** One tools/call over MCP; a tool error fails the run. */
async function mcpCall(client: Client, accountId: number, name: string, args: object): Promise<void> {
  const res = await client.callTool({ name, arguments: { ...args, account_id: accountId } }, { timeout: 120_000 });
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content).slice(0, 300)}`);
}

type Operation = 'list_conversations' | 'get_account';

/** The core's answer to one call (the request pipeline, as a surface runs it). */
function coreRunner(deps: SearchDeps, token: string, account: number) {
  return (operation: Operation, args: ListConversationsParams) =>
    handle(deps, {
      token,
      account,
      operation,
      params: () => (operation === 'get_account' ? {} : parseWith(listConversationsParamsSchema, args)),
    }).then((o) => {
      if (o.error) throw o.error;
      return o.result;
    });
}

interface Run {
  opts: TriageOptions;
  deps: SearchDeps;
  helpdesk: pg.Pool;
  out: TriageRow[];
  pooled: { mcp: number[]; core: number[] };
}

/** Every combination of the list for one role, beside the help desk's statements. */
async function listRole(run: Run, role: 'admin' | 'agent', token: string, client: Client | undefined): Promise<void> {
  const { opts, helpdesk } = run;
  const core = coreRunner(run.deps, token, opts.accountId);
  const account = await core('get_account', {});
  const user = (await helpdesk.query<{ owner_id: string }>('SELECT owner_id FROM access_tokens WHERE token = $1', [token]))
    .rows[0];
  const userId = Number(user?.owner_id);
  const inboxIds = (account.body as { inboxes: Array<{ id: number }> }).inboxes.map((i) => i.id);
  for (const listed of TRIAGE_COMBINATIONS) {
    const args = concrete(listed.args, opts.busyLabel, opts.rareLabels, inboxIds[0] ?? 1);
    const t = await measure(
      {
        mcp: client && (() => mcpCall(client, opts.accountId, 'list_conversations', args)),
        core: () => core('list_conversations', args),
        // One after the other, as ActiveRecord issues them.
        helpdesk: async () => {
          for (const q of helpdeskListStatements(opts.accountId, userId, inboxIds, args)) await helpdesk.query(q);
        },
      },
      opts.reps,
    );
    const body = (await core('list_conversations', args)).body as { data: { payload: unknown[]; meta: { all_count: number } } };
    run.pooled.mcp.push(...t.mcp);
    run.pooled.core.push(...t.core);
    run.out.push({
      role,
      name: listed.name,
      ...(client && { mcp: quantiles(t.mcp) }),
      core: quantiles(t.core),
      helpdesk: quantiles(t.helpdesk),
      rows: body.data.payload.length,
      allCount: body.data.meta.all_count,
    });
  }
}

/**
 * Calls of get_account per role and account, at least: it is one call where the list has a
 * sample of combinations (pooled, hundreds of calls), and the p95 of a dozen calls is their
 * slowest, one pause of the machine.
 */
export const ACCOUNT_MIN_REPS = 60;

/** get_account for one role, in `accountId`. */
async function accountRole(run: Run, role: 'admin' | 'agent', token: string, accountId: number, serverUrl?: string) {
  const client = serverUrl ? await connectHttp(serverUrl, token) : undefined;
  try {
    const core = coreRunner(run.deps, token, accountId);
    const t = await measure(
      { mcp: client && (() => mcpCall(client, accountId, 'get_account', {})), core: () => core('get_account', {}) },
      Math.max(run.opts.reps, ACCOUNT_MIN_REPS),
    );
    const dir = (await core('get_account', {})).body as { inboxes: unknown[]; agents: unknown[] };
    run.out.push({
      role,
      name: `get_account (account ${accountId}: ${dir.agents.length} agents, ${dir.inboxes.length} inboxes)`,
      ...(client && { mcp: quantiles(t.mcp) }),
      core: quantiles(t.core),
    });
  } finally {
    await client?.close();
  }
}

/** Both roles' lists and get_account, then the p50 / p95 of every sampled list call. */
export async function measureTriage(opts: TriageOptions): Promise<TriageResults> {
  const logger = createLogger('silent');
  const db: Db = createPgDb({ url: opts.databaseUrl, poolSize: 4, statementTimeoutMs: 30_000, readOnly: true, logger });
  const postgres = createPostgresEngine(db);
  const deps = withAccessCache({ db, engines: { primary: postgres, postgres, gate: 'flag' }, logger, now: Date.now });
  const helpdesk = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 4,
    options: '-c default_transaction_read_only=on',
    ...warmUpOnConnect,
  });
  const run: Run = { opts, deps, helpdesk, out: [], pooled: { mcp: [], core: [] } };
  const roles = [
    ['admin', opts.adminToken, opts.directory?.adminToken],
    ['agent', opts.agentToken, opts.directory?.agentToken],
  ] as const;
  try {
    for (const [role, token, directoryToken] of roles) {
      const client = opts.serverUrl ? await connectHttp(opts.serverUrl, token) : undefined;
      try {
        await listRole(run, role, token, client);
      } finally {
        await client?.close();
      }
      await accountRole(run, role, token, opts.accountId, opts.serverUrl);
      if (opts.directory && directoryToken)
        await accountRole(run, role, directoryToken, opts.directory.accountId, opts.serverUrl);
    }
  } finally {
    await helpdesk.end();
    await db.close();
  }
  run.out.push({
    role: 'both',
    name: `list_conversations, every sampled call (${run.pooled.core.length})`,
    ...(opts.serverUrl && { mcp: quantiles(run.pooled.mcp) }),
    core: quantiles(run.pooled.core),
  });
  return { rows: run.out, mcp: opts.serverUrl !== undefined };
}

/**
 * The bench data's directory account (bench/generator: 500 agents and 100 inboxes at L), found by
 * its administrator's token; undefined in a database without it.
 */
export async function findDirectoryAccount(databaseUrl: string): Promise<TriageOptions['directory']> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ account_id: string }>(
      `SELECT au.account_id FROM access_tokens t JOIN account_users au ON au.user_id = t.owner_id
       WHERE t.token = $1 AND t.owner_type = 'User' ORDER BY au.account_id LIMIT 1`,
      [DIRECTORY_ADMIN_TOKEN],
    );
    const id = rows[0]?.account_id;
    return id === undefined
      ? undefined
      : { accountId: Number(id), adminToken: DIRECTORY_ADMIN_TOKEN, agentToken: DIRECTORY_AGENT_TOKEN };
  } finally {
    await client.end();
  }
}

const cell = (q: Quantiles | undefined) => (q ? `${q.p50.toFixed(1)} / ${q.p95.toFixed(1)}` : '–');

/** The results as a Markdown table: one row per role and combination, the help desk's p50 over the core's. */
export function triageTable(r: TriageResults): string[] {
  const lines = [
    '| role | combination | MCP p50 / p95 ms | core p50 / p95 ms | help desk p50 / p95 ms | help desk ÷ core (p50) | rows | all_count |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of r.rows) {
    const ratio = row.helpdesk ? (row.helpdesk.p50 / row.core.p50).toFixed(1) : '–';
    lines.push(
      `| ${row.role} | ${row.name} | ${cell(row.mcp)} | ${cell(row.core)} | ${cell(row.helpdesk)} | ${ratio} | ${row.rows ?? '–'} | ${row.allCount ?? '–'} |`,
    );
  }
  return lines;
}

const pair = (q: Quantiles): [number, number] => [Number(q.p50.toFixed(1)), Number(q.p95.toFixed(1))];

/** The results as the rows of a `triage-<scale>-<shape>.json` record (bench/README.md, "Results"). */
export function triageRecordRows(r: TriageResults): TriageRecordRow[] {
  return r.rows.map((row) => ({
    role: row.role,
    combination: row.name,
    ...(row.mcp && { mcp: pair(row.mcp) }),
    core: pair(row.core),
    ...(row.helpdesk && { helpdesk: pair(row.helpdesk), ratio: Number((row.helpdesk.p50 / row.core.p50).toFixed(1)) }),
    ...(row.rows !== undefined && { rows: row.rows }),
    ...(row.allCount !== undefined && { allCount: row.allCount }),
  }));
}
