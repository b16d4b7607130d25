/**
 * `generateData`: fills a database with a deterministic help desk of a given scale — one large
 * account (the one benchmarks search) and small noise accounts. The organisation tables (and
 * labels, tags) come from JS; contacts, conversations, messages, articles and the conversations'
 * label taggings are generated inside Postgres by
 * `INSERT … SELECT … FROM generate_series(…)` chunks, one at a time on each of `concurrency`
 * connections. The `shape` option picks the data's shape (shape.ts); the database's comment records it.
 */
import type { SqlQuery } from '../../src/db/db.js';
import { silentProgress, type Progress } from '../../src/indexer/progress.js';
import { buildArticlesInsert } from './articles.js';
import { buildContactsInsert } from './contacts.js';
import { buildConversationsInsert } from './conversations.js';
import {
  dropSchemaIndexes,
  ensureEmpty,
  ensureSchema,
  openSessions,
  resetSequences,
  schemaIndexes,
  type GeneratorDb,
  type Session,
} from './database.js';
import { buildMessagesInsert } from './messages.js';
import {
  accountOrganisationRows,
  agentInboxIndexes,
  buildUnnestInsert,
  DIRECTORY_ACCOUNT_NAME,
  DIRECTORY_ADMIN_TOKEN,
  DIRECTORY_AGENT_TOKEN,
  LARGE_ADMIN_TOKEN,
  LARGE_AGENT_TOKEN,
  organisationRows,
  userToken,
} from './org.js';
import {
  planAccounts,
  SCALES,
  TABLES,
  validateScale,
  type AccountPlan,
  type ScaleName,
  type ScaleSpec,
  type TableName,
} from './scale.js';
import { DAY_SECONDS, LONG_WINDOW_DAYS, sqlTimestamp, type StatementContext } from './sql-build.js';
import { dropExtraIndexes, HELPDESK_EXTRA_INDEXES, isShape, recordData, type DataRecord, type Shape } from './shape.js';
import { MAX_SEED } from './sql-random.js';
import { buildTaggingsInsert } from './taggings.js';

export interface GenerateOptions {
  /** Where to write: a pg Pool (chunks then run on `concurrency` of its connections) or one client. */
  db: GeneratorDb;
  scale: ScaleName | ScaleSpec;
  /** The data's shape (shape.ts). Default `default`. */
  shape?: Shape;
  /** Same seed (and `now`) ⇒ identical rows. Default 1. */
  seed?: number;
  /** Where the generated time ends (conversations and messages span `days` before it). Default: now, to the second. */
  now?: Date;
  /** Truncate the tables when they already hold rows (otherwise generation refuses). */
  force?: boolean;
  /** Statements run at once; 2 fits a 2-core server. */
  concurrency?: number;
  /** maintenance_work_mem for the index builds. */
  maintenanceWorkMem?: string;
  /** One line per finished step (rows/s per table). */
  log?: (line: string) => void;
  /** Rows inserted, per table. */
  progress?: Progress;
}

export interface StepTiming {
  step: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

export interface GeneratedData {
  seed: number;
  shape: Shape;
  scale: ScaleSpec;
  now: Date;
  large: {
    accountId: number;
    adminUserId: number;
    agentUserId: number;
    adminToken: string;
    agentToken: string;
    inboxIds: number[];
    /** The inboxes the agent is a member of (agentInboxes of them). */
    agentInboxIds: number[];
  };
  small: Array<{ accountId: number; adminUserId: number; adminToken: string }>;
  /** The directory account (ScaleSpec.directory), when the scale has one. */
  directory?: DirectoryInfo;
  counts: Record<TableName, number>;
  timings: StepTiming[];
  seconds: number;
}

export interface DirectoryInfo {
  accountId: number;
  adminToken: string;
  /** An agent of agentInboxes of its inboxes. */
  agentToken: string;
  agents: number;
  inboxes: number;
}

type Builder = (ctx: StatementContext, from: number, to: number) => SqlQuery;

interface GeneratedTable {
  table: TableName;
  build: Builder;
  /** How many units (rows, or conversations for messages) the builder ranges over, per account. */
  units: (plan: AccountPlan) => number;
  /** Units per statement. */
  chunk: (plan: AccountPlan) => number;
  rows: (plan: AccountPlan) => number;
  /** `rows` is only an estimate (taggings: a conversation carries a random number of labels). */
  estimated?: boolean;
}

const CHUNK_ROWS = 50_000;

const GENERATED: readonly GeneratedTable[] = [
  {
    table: 'contacts',
    build: buildContactsInsert,
    units: (p) => p.counts.contacts,
    chunk: () => CHUNK_ROWS,
    rows: (p) => p.counts.contacts,
  },
  {
    table: 'conversations',
    build: buildConversationsInsert,
    units: (p) => p.counts.conversations,
    chunk: () => CHUNK_ROWS,
    rows: (p) => p.counts.conversations,
  },
  {
    // Ranges of conversations holding about CHUNK_ROWS messages each.
    table: 'messages',
    build: buildMessagesInsert,
    units: (p) => (p.counts.messages > 0 ? p.counts.conversations : 0),
    chunk: (p) => Math.max(1, Math.round((CHUNK_ROWS * p.counts.conversations) / Math.max(1, p.counts.messages))),
    rows: (p) => p.counts.messages,
  },
  {
    table: 'articles',
    build: buildArticlesInsert,
    units: (p) => p.counts.articles,
    chunk: () => 2_000,
    rows: (p) => p.counts.articles,
  },
  {
    table: 'taggings',
    build: buildTaggingsInsert,
    units: (p) => (p.counts.labels > 0 ? p.counts.conversations : 0),
    chunk: () => CHUNK_ROWS,
    // 0.3 × 1 + 0.13 × 2 + 0.07 × 3 labels per conversation on average (labels.ts).
    rows: (p) => (p.counts.labels > 0 ? Math.round(0.77 * p.counts.conversations) : 0),
    estimated: true,
  },
];

type Task = (session: Session) => Promise<void>;

/** Runs the tasks in order, one at a time per session; after a failure no task starts, and it rejects. */
async function runTasks(tasks: readonly Task[], sessions: readonly Session[]): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (session: Session) => {
    while (!failed && next < tasks.length) {
      const task = tasks[next++]!;
      await task(session).catch((err: unknown) => {
        failed = true;
        throw err;
      });
    }
  };
  const results = await Promise.allSettled(sessions.map(worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

function timing(step: string, rows: number, startedMs: number): StepTiming {
  const seconds = (performance.now() - startedMs) / 1000;
  return { step, rows, seconds, rowsPerSecond: seconds > 0 ? Math.round(rows / seconds) : 0 };
}

function formatTiming(t: StepTiming): string {
  const rate = t.rows > 0 ? ` (${t.rowsPerSecond.toLocaleString('en')} rows/s)` : '';
  return `${t.step}: ${t.rows > 0 ? `${t.rows.toLocaleString('en')} rows in ` : ''}${t.seconds.toFixed(1)} s${rate}`;
}

function resolveOptions(opts: GenerateOptions) {
  const scale = typeof opts.scale === 'string' ? SCALES[opts.scale] : opts.scale;
  if (!scale) throw new Error(`unknown scale ${JSON.stringify(opts.scale)}: use S, M or L`);
  validateScale(scale);
  const seed = opts.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new Error(`seed must be an integer in [0, ${MAX_SEED}]`);
  const now = new Date(Math.floor((opts.now ?? new Date()).getTime() / 1000) * 1000);
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 2));
  const shape = opts.shape ?? 'default';
  if (!isShape(shape)) throw new Error(`unknown shape ${JSON.stringify(shape)}: use default or skewed`);
  return { scale, shape, seed, now, concurrency, log: opts.log ?? (() => undefined), progress: opts.progress ?? silentProgress };
}

interface Run {
  sessions: Session[];
  plans: AccountPlan[];
  shape: Shape;
  seed: number;
  now: Date;
  scale: ScaleSpec;
  progress: Progress;
  counts: Record<TableName, number>;
  step: (t: StepTiming) => void;
}

/** Generates the data set; refuses a database with rows unless `force`. */
export async function generateData(opts: GenerateOptions): Promise<GeneratedData> {
  const { scale, shape, seed, now, concurrency, log, progress } = resolveOptions(opts);
  const started = performance.now();
  const timings: StepTiming[] = [];
  const { sessions, close: closeSessions } = await openSessions(opts.db, concurrency, opts.maintenanceWorkMem ?? '512MB');
  const run: Run = {
    sessions,
    plans: planAccounts(scale),
    shape,
    seed,
    now,
    scale,
    progress,
    counts: Object.fromEntries(TABLES.map((t) => [t, 0])) as Record<TableName, number>,
    step: (t) => {
      timings.push(t);
      log(formatTiming(t));
    },
  };
  try {
    const main = sessions[0]!;
    if (await ensureSchema(main)) log('created the searchdesk schema');
    await ensureEmpty(main, opts.force ?? false);
    // Rebuilt below: one build is far cheaper than maintaining a trigram GIN index row by row.
    await dropSchemaIndexes(main);
    await dropExtraIndexes(main);
    await insertOrganisation(run);
    for (const table of GENERATED) await insertGenerated(run, table);
    await finish(run);
    const record: DataRecord = {
      generator: 'searchdesk bench:data',
      shape,
      scale: typeof opts.scale === 'string' ? opts.scale : 'custom',
      seed,
      now: now.toISOString(),
    };
    const unrecorded = await recordData(main, record);
    if (unrecorded) log(`the database's comment does not record the shape: ${unrecorded}`);
  } finally {
    await closeSessions();
  }
  const seconds = (performance.now() - started) / 1000;
  return { seed, shape, scale, now, ...accountsInfo(run.plans), counts: run.counts, timings, seconds };
}

/** Indexes back (and the skewed shape's help desk ones), sequences past the ids, then VACUUM ANALYZE. */
async function finish(run: Run): Promise<void> {
  let t0 = performance.now();
  const cost = (create: string) => (create.includes('gin') ? 1 : 0) + (create.includes('ON messages') ? 1 : 0);
  const extra = run.shape === 'skewed' ? HELPDESK_EXTRA_INDEXES : [];
  const indexes = [...schemaIndexes(), ...extra].sort((a, b) => cost(b.create) - cost(a.create));
  // The messages trigram index (the longest build) first, so the others run beside it.
  await runTasks(
    indexes.map((i) => (session) => session.query(i.create).then(() => undefined)),
    run.sessions,
  );
  run.step(timing('indexes', 0, t0));
  t0 = performance.now();
  const main = run.sessions[0]!;
  await main.query(`UPDATE tags SET taggings_count = s.n
    FROM (SELECT tag_id, count(*)::int AS n FROM taggings GROUP BY tag_id) AS s WHERE s.tag_id = tags.id`);
  await resetSequences(main);
  // Vacuum too, not only analyze: hint bits and the visibility map as in a settled database.
  await main.query('VACUUM (ANALYZE)');
  run.step(timing('vacuum analyze', 0, t0));
}

/** The organisation rows of run.plans, or `only` the given ones (organisationRows' tables). */
async function insertOrganisation(run: Run, only?: ReturnType<typeof organisationRows>): Promise<void> {
  const t0 = performance.now();
  const createdAt = sqlTimestamp(new Date(run.now.getTime() - (LONG_WINDOW_DAYS + 30) * DAY_SECONDS * 1000));
  let rows = 0;
  for (const table of only ?? organisationRows(run.plans, run.seed)) {
    const res = await run.sessions[0]!.query(...toArgs(buildUnnestInsert(table, createdAt)));
    run.counts[table.table] = res.rowCount ?? 0;
    rows += res.rowCount ?? 0;
  }
  run.step(timing('organisation', rows, t0));
}

/** One generated table, every account, in chunks spread over the sessions. */
async function insertGenerated(run: Run, gen: GeneratedTable): Promise<void> {
  const t0 = performance.now();
  const tasks: Task[] = [];
  for (const plan of run.plans) {
    const ctx: StatementContext = { plan, seed: run.seed, now: run.now, days: run.scale.days, shape: run.shape };
    const [units, chunk] = [gen.units(plan), gen.chunk(plan)];
    for (let from = 1; from <= units; from += chunk) {
      const to = Math.min(units, from + chunk - 1);
      tasks.push(async (session) => {
        const n = (await session.query(...toArgs(gen.build(ctx, from, to)))).rowCount ?? 0;
        run.counts[gen.table] += n;
        run.progress.advance(n);
      });
    }
  }
  const expected = run.plans.reduce((n, p) => n + gen.rows(p), 0);
  run.progress.start(gen.table, expected);
  await runTasks(tasks, run.sessions);
  run.progress.finish();
  if (!gen.estimated && run.counts[gen.table] !== expected)
    throw new Error(`${gen.table}: inserted ${run.counts[gen.table]} rows, planned ${expected}`);
  run.step(timing(gen.table, run.counts[gen.table], t0));
}

const toArgs = (q: SqlQuery): [string, unknown[]] => [q.text, q.values];

function directoryInfo(plan: AccountPlan): DirectoryInfo {
  return {
    accountId: plan.accountId,
    adminToken: DIRECTORY_ADMIN_TOKEN,
    agentToken: DIRECTORY_AGENT_TOKEN,
    agents: plan.counts.agents,
    inboxes: plan.counts.inboxes,
  };
}

function accountsInfo(plans: readonly AccountPlan[]): Pick<GeneratedData, 'large' | 'small' | 'directory'> {
  const [large, ...others] = plans;
  if (!large) throw new Error('no account planned');
  const small = others.filter((p) => !p.directory);
  const directory = others.find((p) => p.directory);
  const inboxIds = Array.from({ length: large.counts.inboxes }, (_, k) => large.first.inbox + k);
  return {
    large: {
      accountId: large.accountId,
      adminUserId: large.first.user,
      agentUserId: large.first.user + 1,
      adminToken: LARGE_ADMIN_TOKEN,
      agentToken: LARGE_AGENT_TOKEN,
      inboxIds,
      agentInboxIds: agentInboxIndexes(large, 1).map((k) => large.first.inbox + k),
    },
    small: small.map((p) => ({ accountId: p.accountId, adminUserId: p.first.user, adminToken: userToken(p.first.user) })),
    ...(directory && { directory: directoryInfo(directory) }),
  };
}

/** The first id of each table a plan's rows take (null where it takes none). */
function firstIds(plan: AccountPlan): Partial<Record<TableName, number>> {
  const { first, counts } = plan;
  const ids: Partial<Record<TableName, number>> = {
    accounts: plan.accountId,
    users: first.user,
    inboxes: first.inbox,
    contacts: first.contact,
    conversations: first.conversation,
    messages: first.message,
  };
  if (counts.teams > 0) ids.teams = first.team;
  if (counts.labels > 0) ids.labels = first.label;
  return ids;
}

/**
 * Adds the scale's directory account (ScaleSpec.directory) to a database generated at that scale
 * without it, in one transaction on one connection: its organisation rows, contacts,
 * conversations, messages and taggings, with the ids a full generation would give it, then the
 * tags' counters, the sequences and ANALYZE of the tables it wrote. Idempotent: a database that
 * has it already is left as it is (`added` false). Refuses a database whose ids it would reuse.
 */
export async function addDirectoryAccount(opts: GenerateOptions): Promise<{ added: boolean; directory: DirectoryInfo }> {
  const { scale, shape, seed, now, log, progress } = resolveOptions(opts);
  const plans = planAccounts(scale);
  const plan = plans.find((p) => p.directory);
  if (!plan) throw new Error('this scale has no directory account');
  const { sessions, close } = await openSessions(opts.db, 1, opts.maintenanceWorkMem ?? '512MB');
  const session = sessions[0]!;
  try {
    const { rows } = await session.query('SELECT name FROM accounts WHERE id = $1', [plan.accountId]);
    const found = (rows as Array<{ name: string }>)[0];
    if (found?.name === DIRECTORY_ACCOUNT_NAME) {
      log(`the directory account (${plan.accountId}) is there already`);
      return { added: false, directory: directoryInfo(plan) };
    }
    for (const [table, firstId] of Object.entries(firstIds(plan))) {
      const max = (await session.query(`SELECT coalesce(max(id), 0)::bigint AS m FROM ${table}`)).rows[0] as { m: string };
      if (Number(max.m) >= firstId)
        throw new Error(
          `${table} has ids from ${firstId} on: not a database generated at this scale without the directory account`,
        );
    }
    const counts = Object.fromEntries(TABLES.map((t) => [t, 0])) as Record<TableName, number>;
    const run: Run = { sessions, plans: [plan], shape, seed, now, scale, progress, counts, step: (t) => log(formatTiming(t)) };
    await session.query('BEGIN');
    await insertOrganisation(run, accountOrganisationRows(plans, plan, seed));
    for (const table of GENERATED) await insertGenerated(run, table);
    await session.query(`UPDATE tags SET taggings_count = s.n
      FROM (SELECT tag_id, count(*)::int AS n FROM taggings GROUP BY tag_id) AS s WHERE s.tag_id = tags.id`);
    await resetSequences(session);
    await session.query('COMMIT');
    await session.query(`ANALYZE ${TABLES.join(', ')}`);
    return { added: true, directory: directoryInfo(plan) };
  } catch (err) {
    await session.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await close();
  }
}
