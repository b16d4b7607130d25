/**
 * `npm run bench:triage`: list_conversations and get_account through MCP over HTTP (the built
 * server, `node dist/cli.js serve --http`, as `npm run bench` starts it; one SDK client per role,
 * warm, concurrency 1) and through searchdesk's core alone (the request pipeline, records and
 * counts included, on the server's own Db), beside the help desk's own statements for the same
 * list as its ConversationFinder issues them (bench/perf/helpdesk.ts helpdeskListStatements).
 * Each combination alternates the three, after one warm-up, and prints medians and p95, and the
 * help desk's median over the core's; records them (bench/results/triage-<scale>-<shape>.json, then
 * bench/RESULTS.md) unless `--no-record`.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createPgDb, warmUpOnConnect } from '../src/db/pg.js';
import { createLogger } from '../src/logger.js';
import { withAccessCache } from '../src/search/core.js';
import { listConversationsParamsSchema, type ListConversationsParams } from '../src/search/list-params.js';
import { parseWith } from '../src/search/params.js';
import { handle } from '../src/search/pipeline.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import { helpdeskListStatements } from './perf/helpdesk.js';
import { connectHttp, serverCliEnv, startServer } from './perf/server.js';
import { quantile } from './perf/stats.js';
import { triageRow, triageStart, writeTriageRecord } from './record/triage.js';
import { updateResults } from './results.js';

const HELP = `Usage: npm run bench:triage -- --database-url URL [--reps N] [--account ID] [--admin-token T] [--agent-token T]
         [--busy-label TITLE] [--rare-labels A,B] [--no-mcp] [--scale L] [--no-record]
Defaults fit bench/triage-standin.sql (tok1, tok2, label-1, label-2,label-3); the generator's L:
  --admin-token bench-admin-token --agent-token bench-agent-token --busy-label billing --rare-labels downgrade,upgrade
`;

/** The labels a run names: BUSY and RARE stand for the --busy-label and --rare-labels titles. */
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
  // The caller's first inbox (set per role below).
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

/** One tools/call over MCP; a tool error fails the run. */
async function mcpCall(client: Client, accountId: number, name: string, args: object): Promise<void> {
  const res = await client.callTool({ name, arguments: { ...args, account_id: accountId } }, undefined, { timeout: 120_000 });
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content).slice(0, 300)}`);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const fmt = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.95).toFixed(1)}`;

interface Sides {
  mcp?: () => Promise<unknown>;
  core: () => Promise<unknown>;
  helpdesk?: () => Promise<unknown>;
}

/** One warm-up each, then `reps` rounds of MCP, core and help desk one after the other. */
async function measure(sides: Sides, reps: number): Promise<{ mcp: number[]; core: number[]; helpdesk: number[] }> {
  await sides.mcp?.();
  await sides.core();
  await sides.helpdesk?.();
  const out = { mcp: [] as number[], core: [] as number[], helpdesk: [] as number[] };
  for (let i = 0; i < reps; i++) {
    if (sides.mcp) out.mcp.push(await time(sides.mcp));
    out.core.push(await time(sides.core));
    if (sides.helpdesk) out.helpdesk.push(await time(sides.helpdesk));
  }
  return out;
}

const OPTIONS = {
  'database-url': { type: 'string' },
  reps: { type: 'string', default: '9' },
  account: { type: 'string', default: '1' },
  'admin-token': { type: 'string', default: 'tok1' },
  'agent-token': { type: 'string', default: 'tok2' },
  'busy-label': { type: 'string', default: 'label-1' },
  'rare-labels': { type: 'string', default: 'label-2,label-3' },
  'no-mcp': { type: 'boolean', default: false },
  scale: { type: 'string', default: 'L' },
  'no-record': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: OPTIONS });
  const url = values['database-url'];
  if (values.help || !url) {
    process.stdout.write(HELP);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const reps = Number(values.reps);
  const accountId = Number(values.account);
  const busy = values['busy-label'];
  const rare = values['rare-labels'].split(',');
  const logger = createLogger('silent');
  const db = createPgDb({ url, poolSize: 4, statementTimeoutMs: 30_000, readOnly: true, logger });
  const postgres = createPostgresEngine(db);
  const deps = withAccessCache({ db, engines: { primary: postgres, postgres, gate: 'flag' }, logger, now: Date.now });
  const helpdesk = new pg.Pool({
    connectionString: url,
    max: 4,
    options: '-c default_transaction_read_only=on',
    ...warmUpOnConnect,
  });
  const server = values['no-mcp'] ? undefined : await startServer(serverCliEnv({ DATABASE_URL: url }));
  const rows: string[] = [
    '| role | combination | MCP p50 / p95 ms | core p50 / p95 ms | help desk p50 / p95 ms | help desk ÷ core (p50) | rows | all_count |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  // Every list_conversations call of the sample, both roles: the p95 is over the sample.
  const pooled = { mcp: [] as number[], core: [] as number[] };
  const start = triageStart();
  const recorded: ReturnType<typeof triageRow>[] = [];
  try {
    for (const [role, token] of [
      ['admin', values['admin-token']],
      ['agent', values['agent-token']],
    ] as const) {
      const client = server ? await connectHttp(server.url, token) : undefined;
      const run = (operation: 'list_conversations' | 'get_account', args: ListConversationsParams) =>
        handle(deps, {
          token,
          account: accountId,
          operation,
          params: () => (operation === 'get_account' ? {} : parseWith(listConversationsParamsSchema, args)),
        }).then((o) => {
          if (o.error) throw o.error;
          return o.result;
        });
      const account = await run('get_account', {});
      const user = (await helpdesk.query<{ owner_id: string }>('SELECT owner_id FROM access_tokens WHERE token = $1', [token]))
        .rows[0];
      const userId = Number(user?.owner_id);
      const inboxIds = (account.body as { inboxes: Array<{ id: number }> }).inboxes.map((i) => i.id);
      for (const listed of TRIAGE_COMBINATIONS) {
        const args = concrete(listed.args, busy, rare, inboxIds[0] ?? 1);
        const t = await measure(
          {
            mcp: client && (() => mcpCall(client, accountId, 'list_conversations', args)),
            core: () => run('list_conversations', args),
            // One after the other, as ActiveRecord issues them.
            helpdesk: async () => {
              for (const q of helpdeskListStatements(accountId, userId, inboxIds, args)) await helpdesk.query(q);
            },
          },
          reps,
        );
        const body = (await run('list_conversations', args)).body as {
          data: { payload: unknown[]; meta: { all_count: number } };
        };
        pooled.mcp.push(...t.mcp);
        pooled.core.push(...t.core);
        const ratio = quantile(t.helpdesk, 0.5) / quantile(t.core, 0.5);
        rows.push(
          `| ${role} | ${listed.name} | ${client ? fmt(t.mcp) : '–'} | ${fmt(t.core)} | ${fmt(t.helpdesk)} | ${ratio.toFixed(1)} | ${body.data.payload.length} | ${body.data.meta.all_count} |`,
        );
        recorded.push(triageRow(role, listed.name, t, { rows: body.data.payload.length, allCount: body.data.meta.all_count }));
      }
      const a = await measure(
        { mcp: client && (() => mcpCall(client, accountId, 'get_account', {})), core: () => run('get_account', {}) },
        reps,
      );
      const dir = account.body as { inboxes: unknown[]; agents: unknown[] };
      rows.push(
        `| ${role} | get_account (${dir.agents.length} agents, ${dir.inboxes.length} inboxes) | ${client ? fmt(a.mcp) : '–'} | ${fmt(a.core)} | – | – | – | – |`,
      );
      recorded.push(triageRow(role, `get_account (${dir.agents.length} agents, ${dir.inboxes.length} inboxes)`, a));
      await client?.close();
    }
  } finally {
    await server?.stop();
    await helpdesk.end();
    await db.close();
  }
  rows.push(
    `| both | list_conversations, every sampled call (${pooled.core.length}) | ${server ? fmt(pooled.mcp) : '–'} | ${fmt(pooled.core)} | – | – | – | – |`,
  );
  process.stdout.write(`${rows.join('\n')}\n`);
  recorded.push(triageRow('both', `list_conversations, every sampled call (${pooled.core.length})`, pooled));
  if (!values['no-record'])
    process.stderr.write(
      `record written to ${writeTriageRecord(values, start, process.argv.slice(2), recorded)}; ${updateResults()} rendered\n`,
    );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
