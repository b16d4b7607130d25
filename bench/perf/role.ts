/**
 * The README's read-only role in a bench database, so that a run measures what production runs:
 * README "Production" step 1 (CONNECT, USAGE on the schema, SELECT on the tables searchdesk reads)
 * and step 2's EXECUTE on the word statistics function, when `db indexes` has made it.
 */
import type pg from 'pg';
import { INDEX, STATISTICS_FUNCTIONS } from '../../src/db/catalog.js';
import { TABLES } from '../generator/scale.js';

/**
 * README "Production" step 1: the tables the read-only role may read, which are every table of
 * the bench's schema (test/bench-role.test.ts holds the two lists equal).
 */
export const README_TABLES: readonly string[] = TABLES;

/** A role name the bench accepts: a plain lower-case identifier, written into statements as is. */
export function checkRoleName(role: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role))
    throw new Error(`--server-role must be a lower-case identifier, got ${JSON.stringify(role)}`);
  return role;
}

/**
 * Creates `role` (LOGIN, no password: the bench's host authenticates it as it does the URL's role)
 * when it is missing, and grants it exactly the README's grants; safe to repeat. `pool` must be
 * allowed to create roles and grant on the tables (the bench's superuser).
 */
export async function ensureReadOnlyRole(pool: pg.Pool, role: string): Promise<void> {
  checkRoleName(role);
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ WRITE');
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (exists.rowCount === 0) await client.query(`CREATE ROLE ${role} LOGIN`);
    const db = (await client.query<{ db: string }>('SELECT quote_ident(current_database()) AS db')).rows[0]!.db;
    await client.query(`GRANT CONNECT ON DATABASE ${db} TO ${role}`);
    await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await client.query(`GRANT SELECT ON ${README_TABLES.join(', ')} TO ${role}`);
    const fn = `${STATISTICS_FUNCTIONS[INDEX.messagesWords]!}()`;
    const made = await client.query<{ made: boolean }>('SELECT to_regprocedure($1) IS NOT NULL AS made', [fn]);
    if (made.rows[0]?.made) await client.query(`GRANT EXECUTE ON FUNCTION ${fn} TO ${role}`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** `url` logging in as `role` (same host, database and password). */
export function urlAsRole(url: string, role: string): string {
  const u = new URL(url);
  u.username = role;
  return u.toString();
}
