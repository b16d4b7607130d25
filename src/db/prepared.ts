/**
 * Prepared statements by name: every connection of a pool parses a statement's text once and then
 * sends only its values (docs/plans.md#database-sessions). Statements planned once
 * (SqlQuery.planOnce, declared by a plan's strategy: plan/strategy.ts) run on the pool whose
 * sessions keep a prepared statement's first plan.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../logger.js';
import type { SqlQuery } from './db.js';

/**
 * How many statement texts one pool prepares; past it a new text runs unnamed. The builders take
 * every caller value as a parameter, so their texts are few (docs/plans.md#database-sessions).
 */
export const MAX_PREPARED_STATEMENTS = 64;

/**
 * How many of those texts may name an account (SqlQuery.anyAccount): a message window names its
 * account so that its one plan is weighed for it, and without this bound a few accounts' windows
 * would take every name and leave the other statements unprepared.
 */
export const MAX_ACCOUNT_STATEMENTS = 24;

interface Statement {
  name: string;
  text: string;
}

/** The names of a pool's prepared statements, by text. */
export class PreparedStatements {
  private readonly statements = new Map<string, Statement>();
  private accountStatements = 0;
  private generation = 1;

  constructor(
    private enabled: boolean,
    private readonly logger: Logger,
    private readonly limit = MAX_PREPARED_STATEMENTS,
    private readonly accountLimit = MAX_ACCOUNT_STATEMENTS,
  ) {}

  /**
   * Runs `q` on `pool`, prepared under its text's name while there is one; a statement planned
   * once (SqlQuery.planOnce) on `once`, a pool whose sessions keep a prepared statement's first
   * plan (sessionOptions), when there is one. Unprepared, every statement runs on `pool`: a
   * session that keeps plans would give an unnamed statement a generic plan too.
   */
  async query<R extends object>(pool: pg.Pool, q: SqlQuery, once?: pg.Pool): Promise<pg.QueryResult<R>> {
    const statement = this.statementOf(q);
    if (statement === undefined)
      return q.anyAccount ? this.query<R>(pool, q.anyAccount(), once) : pool.query<R>(q.text, q.values);
    try {
      // The kept text, not this call's: each connection remembers the text of what it prepared,
      // and ten connections would otherwise each hold their own copies (more live heap, and the
      // garbage collector multiplies it in peak RSS).
      return await ((q.planOnce && once) || pool).query<R>({ name: statement.name, text: statement.text, values: q.values });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === '26000' || code === '42P05') {
        // A statement prepared on one connection is missing, or already there, on the server:
        // something between us and Postgres (a pooler in transaction mode) moves sessions.
        this.enabled = false;
        this.logger.warn(
          { event: 'pg_prepared_statements_off', code },
          'Postgres lost a prepared statement between two calls (a connection pooler in transaction mode?); running unprepared from now on — set SEARCHDESK_PG_PREPARED_STATEMENTS=off',
        );
      } else if (code === '0A000') {
        // "cached plan must not change result type": a table's columns changed under the prepared
        // statement (a migration), and that connection refuses it from now on. Prepared afresh
        // under a new name; any other 0A000 fails again unprepared and is thrown from there.
        this.statements.delete(q.text);
        if (q.anyAccount) this.accountStatements--;
        this.generation++;
      } else {
        throw err;
      }
      return pool.query<R>(q.text, q.values);
    }
  }

  /**
   * The name of a statement with values: its text's hash, so that two instances over one pool
   * (the bench's) never give one name two texts; a text prepared afresh after a migration gets
   * a new suffix.
   */
  private statementOf({ text, values, anyAccount }: SqlQuery): Statement | undefined {
    // A statement without values goes as a simple query, as before: admin commands send several
    // statements in one text (db setup), which a prepared statement cannot hold.
    if (!this.enabled || values.length === 0) return undefined;
    const known = this.statements.get(text);
    if (known !== undefined || this.statements.size >= this.limit) return known;
    if (anyAccount) {
      if (this.accountStatements >= this.accountLimit) return undefined;
      this.accountStatements++;
    }
    const hash = createHash('sha1').update(text).digest('hex').slice(0, 24);
    const statement = { name: `searchdesk_${hash}_${this.generation}`, text };
    this.statements.set(text, statement);
    return statement;
  }
}
