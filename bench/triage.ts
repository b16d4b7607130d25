/**
 * `npm run bench:triage`: list_conversations and get_account through searchdesk's core (the
 * request pipeline, records and counts included, on the server's own Db) beside the help desk's
 * own statements for the same list, as its ConversationFinder issues them: three ActiveRecord
 * `.count`s (mine, unassigned, all) and the page (`ORDER BY last_activity_at DESC LIMIT 25
 * OFFSET …`, labels through acts-as-taggable-on's `tagged_with any`). Core only, no server; each
 * combination alternates the two, after one warm-up, and prints medians and p95. Nothing is written.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPgDb, warmUpOnConnect } from '../src/db/pg.js';
import { createLogger } from '../src/logger.js';
import { withAccessCache } from '../src/search/core.js';
import { listConversationsParamsSchema, type ListConversationsParams } from '../src/search/list-params.js';
import { parseWith } from '../src/search/params.js';
import { handle } from '../src/search/pipeline.js';
import { createPostgresEngine } from '../src/search/messages/postgres.js';
import { quantile } from './perf/stats.js';

const HELP = `Usage: npm run bench:triage -- --database-url URL [--reps N] [--account ID] [--admin-token T] [--agent-token T]
`;

/** The sampled combinations: the big ones first (all open, unassigned, one busy label, waiting longest). */
export const TRIAGE_COMBINATIONS: ReadonlyArray<{ name: string; args: ListConversationsParams }> = [
  { name: 'all open (default)', args: {} },
  { name: 'open, unassigned', args: { assignee_type: 'unassigned' } },
  { name: 'open, mine', args: { assignee_type: 'me' } },
  { name: 'open, busy label', args: { labels: ['label-1'] } },
  { name: 'open, two labels', args: { labels: ['label-2', 'label-3'] } },
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

const STATUS = { open: 0, resolved: 1, pending: 2, snoozed: 3 } as const;
const PRIORITY = { low: 0, medium: 1, high: 2, urgent: 3, none: null } as const;

/** The help desk's statements for one list: its three counts and its page. */
function helpdeskStatements(accountId: number, userId: number, inboxIds: number[], a: ListConversationsParams) {
  const values: unknown[] = [accountId, inboxIds];
  const add = (v: unknown) => `$${values.push(v)}`;
  const where = ['conversations.account_id = $1', 'conversations.inbox_id = ANY($2)'];
  if ((a.status ?? 'open') !== 'all') where.push(`conversations.status = ${add(STATUS[a.status as keyof typeof STATUS] ?? 0)}`);
  if (a.inbox_id !== undefined) where.push(`conversations.inbox_id = ${add(a.inbox_id)}`);
  if (a.team_id !== undefined) where.push(`conversations.team_id = ${add(a.team_id)}`);
  if (a.priority !== undefined)
    where.push(
      a.priority === 'none' ? 'conversations.priority IS NULL' : `conversations.priority = ${add(PRIORITY[a.priority])}`,
    );
  if (a.conversation_type === 'unattended')
    where.push('(conversations.first_reply_created_at IS NULL OR conversations.waiting_since IS NOT NULL)');
  if (a.labels)
    where.push(`EXISTS (SELECT 1 FROM taggings WHERE taggings.taggable_id = conversations.id AND taggings.taggable_type = 'Conversation'
      AND taggings.context = 'labels' AND taggings.tag_id IN (SELECT tags.id FROM tags WHERE LOWER(tags.name) = ANY(${add(a.labels)})))`);
  const base = where.join(' AND ');
  const order = {
    last_activity_at_desc: 'last_activity_at DESC',
    created_at_desc: 'created_at DESC',
    created_at_asc: 'created_at ASC',
    priority_desc: 'priority DESC NULLS LAST, last_activity_at DESC',
    waiting_since_asc: 'waiting_since ASC NULLS LAST, created_at ASC',
  }[a.sort_by ?? 'last_activity_at_desc'];
  const assignee = {
    me: `AND conversations.assignee_id = ${userId}`,
    unassigned: 'AND conversations.assignee_id IS NULL',
    assigned: 'AND conversations.assignee_id IS NOT NULL',
    all: '',
  }[a.assignee_type ?? 'all'];
  return [
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base} AND conversations.assignee_id = ${userId}`, values },
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base} AND conversations.assignee_id IS NULL`, values },
    { text: `SELECT COUNT(*) FROM conversations WHERE ${base}`, values },
    {
      text: `SELECT conversations.* FROM conversations WHERE ${base} ${assignee} ORDER BY ${order} LIMIT 25 OFFSET ${((a.page ?? 1) - 1) * 25}`,
      values,
    },
  ];
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const fmt = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.95).toFixed(1)}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      reps: { type: 'string', default: '9' },
      account: { type: 'string', default: '1' },
      'admin-token': { type: 'string', default: 'tok1' },
      'agent-token': { type: 'string', default: 'tok2' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const url = values['database-url'];
  if (values.help || !url) {
    process.stdout.write(HELP);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const reps = Number(values.reps);
  const accountId = Number(values.account);
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
  const rows: string[] = ['role | combination | searchdesk p50 / p95 ms | help desk p50 / p95 ms | rows | all_count'];
  for (const [role, token] of [
    ['admin', values['admin-token']],
    ['agent', values['agent-token']],
  ] as const) {
    const access = await handle(deps, { token, account: accountId, operation: 'get_account', params: () => ({}) });
    if (access.error) throw access.error;
    const user = (await helpdesk.query<{ owner_id: string }>('SELECT owner_id FROM access_tokens WHERE token = $1', [token]))
      .rows[0];
    const userId = Number(user?.owner_id);
    const inboxIds = (access.result.body as { inboxes: Array<{ id: number }> }).inboxes.map((i) => i.id);
    for (const listed of TRIAGE_COMBINATIONS) {
      const combo = listed.args.inbox_id === 0 ? { ...listed, args: { ...listed.args, inbox_id: inboxIds[0] ?? 1 } } : listed;
      const core = () =>
        handle(deps, {
          token,
          account: accountId,
          operation: 'list_conversations',
          params: () => parseWith(listConversationsParamsSchema, combo.args),
        }).then((o) => {
          if (o.error) throw o.error;
          return o.result;
        });
      // One after the other, as ActiveRecord issues them.
      const theirs = async () => {
        for (const q of helpdeskStatements(accountId, userId, inboxIds, combo.args)) await helpdesk.query(q);
      };
      const first = await core();
      await theirs();
      const [ours, hd]: [number[], number[]] = [[], []];
      for (let i = 0; i < reps; i++) {
        ours.push(await time(core));
        hd.push(await time(theirs));
      }
      const body = first.body as { data: { payload: unknown[]; meta: { all_count: number } } };
      rows.push(
        `${role} | ${combo.name} | ${fmt(ours)} | ${fmt(hd)} | ${body.data.payload.length} | ${body.data.meta.all_count}`,
      );
    }
    const account: number[] = [];
    for (let i = 0; i < reps; i++)
      account.push(await time(() => handle(deps, { token, account: accountId, operation: 'get_account', params: () => ({}) })));
    rows.push(`${role} | get_account | ${fmt(account)} | – | – | –`);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
  await helpdesk.end();
  await db.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
