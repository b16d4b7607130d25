/**
 * The baseline: the same search without the MCP HTTP surface. SQL is built with the core's own
 * builders and sent through a pg Pool with the server's session settings (sessionOptions);
 * message ids come from the engine's own request (Postgres SQL, or the query DSL through the
 * Elasticsearch/OpenSearch client), then the records are read with the same SQL the core uses. What is left between this and an MCP call is the
 * surface: HTTP, JSON-RPC, token and access checks, validation, record mapping, serialisation.
 */
import { appendFileSync } from 'node:fs';
import pg from 'pg';
import { resolveAccess, type AccessContext } from '../../src/auth/access.js';
import type { Db, SqlQuery } from '../../src/db/db.js';
import { PreparedStatements, sessionOptions, warmUpOnConnect } from '../../src/db/pg.js';
import { ARTICLE_SIZES, ARTICLE_STRATEGIES, searchArticles } from '../../src/search/articles.js';
import { buildContactsQuery, searchContacts, type ContactStrategy } from '../../src/search/contacts.js';
import type { PlanOptions } from '../../src/search/plan/strategy.js';
import type { SearchContext } from '../../src/search/context.js';
import { createLogger } from '../../src/logger.js';
import { CONVERSATION_LIMITS, searchConversations } from '../../src/search/conversations.js';
import { conversationStatement, type ConversationStatement } from '../../src/search/conversation-statements.js';
import { chooseStrategy } from '../../src/search/plan/executor.js';
import type { SearchClient } from '../../src/search/messages/client.js';
import { createElasticsearchClient, elasticsearchSearchClient } from '../../src/search/messages/elasticsearch.js';
import { searchMessages } from '../../src/search/messages/index.js';
import type { MessageEngine } from '../../src/search/messages/engine.js';
import { createPostgresEngine } from '../../src/search/messages/postgres.js';
import { walkStatement } from '../../src/search/messages/postgres/statements.js';
import { createOpenSearchClient, openSearchSearchClient } from '../../src/search/messages/opensearch.js';
import { createSearchdeskEngine } from '../../src/search/messages/searchdesk.js';
import { createSearchkickEngine } from '../../src/search/messages/searchkick.js';
import { buildMessageQuery } from '../../src/search/messages/query.js';
import { parseParams, type Operation } from '../../src/search/params.js';
import { splitWords } from '../../src/search/text.js';
import type { BenchQuery, Role } from './workload.js';

/** BENCH_TRACE=1: each statement of the core on stderr, to see which strategy answered and its cost. */
const TRACE = process.env.BENCH_TRACE === '1';
/** BENCH_EXPLAIN=1 (with BENCH_TRACE): each traced statement's plan (EXPLAIN ANALYZE, run again) on stderr. */
export const EXPLAIN = TRACE && process.env.BENCH_EXPLAIN === '1';
/**
 * BENCH_SQL=<file>: each statement of the core appended to <file> as one JSON line (label, text,
 * values), to run it again outside the core (an A/B of two statement texts, a plan by hand).
 */
const SQL_FILE = process.env.BENCH_SQL;
/**
 * BENCH_HIDE_INDEXES=<name>,…: searchdesk's indexes of those names left out of what the core
 * learns of the catalog (searchdeskIndexes), so that it plans as without them while they stay in
 * place: an A/B of an index on the same statistics (dropping it, the next run's `db indexes` would
 * build it again and ANALYZE the table, whose new sample moves other plans).
 */
const HIDDEN_INDEXES = new Set((process.env.BENCH_HIDE_INDEXES ?? '').split(',').filter((name) => name !== ''));

/**
 * BENCH_CORE_ROLE=<role>: the core's sessions log in as that role (on the bench's host, with the
 * URL's password if any), to measure what a role that does not own the tables plans with, such as
 * README's read-only one (an index's statistics are the owner's). The bench's own and the help
 * desk's sessions keep the URL's role.
 */
const CORE_ROLE = process.env.BENCH_CORE_ROLE;

/** Appends a statement to the BENCH_SQL file, when one is set. */
export function recordSql(label: string | undefined, q: SqlQuery): void {
  if (SQL_FILE) appendFileSync(SQL_FILE, `${JSON.stringify({ label, text: q.text, values: q.values, planOnce: q.planOnce })}\n`);
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement, which runs it once more: its plan's lines. */
export async function explainPlan(pool: pg.Pool, sql: { text: string; values: unknown[] }): Promise<string[]> {
  const res = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values);
  return res.rows.map((row) => row['QUERY PLAN']);
}

/** A plan's lines indented under a trace line, for stderr. */
export const traceLines = (lines: string[]) => lines.map((line) => `      ${line}\n`).join('');

const SILENT = createLogger('silent');

export type EngineKind = 'postgres' | 'elasticsearch' | 'opensearch' | 'opensearch+searchkick';

export interface DirectEngine {
  kind: EngineKind;
  /** The engine the server would run, searched through the core's own searchMessages. */
  engine: MessageEngine;
  close(): Promise<void>;
}

const OPS: Record<BenchQuery['tool'], Operation> = {
  search_all: 'all',
  search_contacts: 'contacts',
  search_conversations: 'conversations',
  search_messages: 'messages',
  search_articles: 'articles',
};

export class Direct {
  /** A plain pool: the bench's own reads (the workload's sample) and its index changes. */
  readonly pool: pg.Pool;
  /**
   * The help desk's SQL, on sessions of its own in the state of searchdesk's: plain settings, each
   * connection warmed as the server warms its own (ALLOCATOR_WARM_UP; here before its first
   * statement, warmUpOnConnect, so that no measured statement runs cold). On the bench's own pool
   * it ran on backends that had sampled the workload and built indexes, and had kept their
   * memory since: 4.5 ms for a statement that took 5.6 on a fresh backend (a rare word in one
   * inbox at L), while searchdesk's ran on fresh ones.
   */
  readonly helpdeskPool: pg.Pool;
  /** searchdesk's statements, on sessions set up as the server sets up its own (sessionOptions). */
  readonly corePool: pg.Pool;
  /** Its statements planned once (SqlQuery.planOnce), as the server's second pool runs them (createPgDb). */
  readonly coreOncePool: pg.Pool;
  private access = new Map<Role, AccessContext>();
  /** Strategies and knobs disabled in the core's searches (bench:core --disable: the ablation). */
  plan?: PlanOptions;

  /** `coreRole`: the role the core's sessions log in as (BENCH_CORE_ROLE by default, else the URL's). */
  constructor(databaseUrl: string, statementTimeoutMs: number, coreRole: string | undefined = CORE_ROLE) {
    const plain = `-c statement_timeout=${statementTimeoutMs} -c default_transaction_read_only=on`;
    const coreUrl = new URL(databaseUrl);
    if (coreRole) coreUrl.username = coreRole;
    const pool = (options: string, hooks = {}, url = databaseUrl) =>
      new pg.Pool({ connectionString: url, max: 10, options, ...hooks });
    this.pool = pool(plain);
    this.helpdeskPool = pool(plain, warmUpOnConnect);
    this.corePool = pool(sessionOptions(statementTimeoutMs, true), warmUpOnConnect, coreUrl.toString());
    this.coreOncePool = pool(sessionOptions(statementTimeoutMs, true, 'once'), warmUpOnConnect, coreUrl.toString());
  }

  private db?: Db;

  /**
   * A Db over the core's pool, one for the run: the core keeps what it reads once per database
   * (statistics, the index catalog) by its Db, as the server keeps one for its life.
   */
  private asDb(): Db {
    return (this.db ??= poolDb(this.corePool, this.coreOncePool));
  }

  async resolve(role: Role, token: string, accountId: number): Promise<AccessContext> {
    const res = await this.pool.query<{ owner_id: string }>('SELECT owner_id FROM access_tokens WHERE token = $1', [token]);
    const userId = Number(res.rows[0]?.owner_id);
    const access = await resolveAccess(this.asDb(), { userId }, accountId);
    this.access.set(role, access);
    return access;
  }

  accessOf(role: Role): AccessContext {
    const a = this.access.get(role);
    if (!a) throw new Error(`access of ${role} not resolved`);
    return a;
  }

  /** The core's own search (strategy choice included) over the plain pool, without a surface. */
  private context(access: AccessContext, gin: boolean): SearchContext {
    return {
      db: this.asDb(),
      access: { ...access, flags: { ...access.flags, searchWithGin: gin } },
      logger: SILENT,
      now: Date.now,
      plan: this.plan,
    };
  }

  private async conversations(access: AccessContext, params: ReturnType<typeof parseParams<'conversations'>>, gin: boolean) {
    return (await searchConversations(this.context(access, gin), params)).items;
  }

  private async contacts(access: AccessContext, params: ReturnType<typeof parseParams<'contacts'>>) {
    return (await searchContacts(this.context(access, false), params)).items;
  }

  private async messages(access: AccessContext, params: ReturnType<typeof parseParams<'messages'>>, engine: DirectEngine) {
    // The server's own path: the engine's ids or rows, then the records (no fallback: the engine
    // is its own Postgres engine here, and the gate is open).
    const engines = { primary: engine.engine, postgres: engine.engine, gate: 'all' as const };
    return (await searchMessages(this.context(access, false), engines, params)).items;
  }

  /** Runs one benchmark query directly; resolves with its duration in ms. */
  async run(q: BenchQuery, opts: { gin: boolean; engine: DirectEngine }): Promise<number> {
    const started = performance.now();
    const access = this.accessOf(q.role);
    const op = OPS[q.tool];
    switch (op) {
      case 'contacts':
        await this.contacts(access, parseParams('contacts', q.args));
        break;
      case 'conversations':
        await this.conversations(access, parseParams('conversations', q.args), opts.gin);
        break;
      case 'articles': {
        await searchArticles(this.context(access, opts.gin), parseParams('articles', q.args));
        break;
      }
      case 'messages':
        await this.messages(access, parseParams('messages', q.args), opts.engine);
        break;
      case 'all': {
        const { q: text, page, since, until } = parseParams('all', q.args);
        await Promise.all([
          this.contacts(access, { q: text, page, since, until }),
          this.conversations(access, { q: text, page, since, until }, opts.gin),
          access.flags.advancedSearch ? this.messages(access, { q: text, page }, opts.engine) : Promise.resolve([]),
          searchArticles(this.context(access, opts.gin), { q: text, page }),
        ]);
        break;
      }
    }
    return performance.now() - started;
  }

  /** The SQL of a contacts/conversations/articles/messages(Postgres) query, for EXPLAIN. */
  sqlOf(q: BenchQuery, gin: boolean, strategy?: ConversationStatement | ContactStrategy): SqlQuery | undefined {
    const access = this.accessOf(q.role);
    switch (OPS[q.tool]) {
      case 'contacts':
        return buildContactsQuery(access, parseParams('contacts', q.args), strategy as ContactStrategy | undefined);
      case 'conversations':
        return conversationStatement(
          access,
          parseParams('conversations', q.args),
          (strategy as ConversationStatement | undefined) ?? (gin ? 'window' : 'scan'),
          CONVERSATION_LIMITS,
        );
      case 'articles': {
        const params = parseParams('articles', q.args);
        const words = splitWords(params.q);
        const indexes = { ordered: gin, trigram: gin, titleDescriptionTrigram: gin, titleTrigram: gin };
        const input = { access, params, words, indexes, sizes: ARTICLE_SIZES };
        const so = { found: [], tried: [], last: [] };
        return chooseStrategy(ARTICLE_STRATEGIES, input, so).strategy!.statement(input, so, false);
      }
      case 'messages': {
        const query = buildMessageQuery(access, parseParams('messages', q.args), Date.now());
        return query ? walkStatement(query) : undefined;
      }
      default:
        return undefined;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.helpdeskPool.end(), this.corePool.end(), this.coreOncePool.end()]);
  }
}

/**
 * Milliseconds the core's statements have taken since the process started, driver included (each
 * from its call to its rows): what a search spends beyond them is the core's own JavaScript and
 * the awaits between its statements.
 */
export const statementTime = { ms: 0 };

/** A Db over a plain pool (statements traced on stderr with BENCH_TRACE=1). */
function poolDb(pool: pg.Pool, once: pg.Pool): Db {
  // Prepared by name as the server's pool prepares them (createPgDb), unless the bench runs with
  // SEARCHDESK_PG_PREPARED_STATEMENTS=off (which its server inherits: cliEnv).
  const prepared = new PreparedStatements(process.env.SEARCHDESK_PG_PREPARED_STATEMENTS !== 'off', SILENT);
  return {
    kind: 'pg',
    query: async <R extends object>(q: SqlQuery, label?: string) => {
      const started = performance.now();
      let rows = (await prepared.query<R>(pool, q, once)).rows;
      statementTime.ms += performance.now() - started;
      if (label === 'index_catalog' && HIDDEN_INDEXES.size > 0)
        rows = rows.filter((row) => !HIDDEN_INDEXES.has((row as { name?: string }).name ?? ''));
      recordSql(label, q);
      if (TRACE)
        process.stderr.write(
          `  [trace] ${label ?? 'query'} ${(performance.now() - started).toFixed(2)} ms, ${rows.length} rows\n`,
        );
      if (EXPLAIN) process.stderr.write(traceLines(await explainPlan(pool, q)));
      return rows;
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: async () => {},
  };
}

/** The Postgres engine's own plan (window, longer window, trigram index) on `pool`, as the server runs it. */
export function postgresEngine(direct: Direct): DirectEngine {
  return { kind: 'postgres', engine: createPostgresEngine(poolDb(direct.corePool, direct.coreOncePool)), close: async () => {} };
}

/** searchdesk's own engine (its request, its reading of the hits) on `client`, which it owns. */
function searchdeskEngine(kind: DirectEngine['kind'], client: SearchClient, index: string): DirectEngine {
  const engine = createSearchdeskEngine(client, index);
  return { kind, engine, close: () => engine.close() };
}

export function elasticsearchEngine(url: string, index: string): DirectEngine {
  return searchdeskEngine('elasticsearch', elasticsearchSearchClient(createElasticsearchClient(url, 60_000)), index);
}

export function opensearchEngine(url: string, index: string): DirectEngine {
  return searchdeskEngine('opensearch', openSearchSearchClient(createOpenSearchClient(url, 60_000)), index);
}

export function searchkickEngine(url: string, index: string): DirectEngine {
  const engine = createSearchkickEngine(openSearchSearchClient(createOpenSearchClient(url, 60_000)), index);
  return { kind: 'opensearch+searchkick', engine, close: () => engine.close() };
}
