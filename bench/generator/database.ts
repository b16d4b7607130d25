/**
 * The target database around a bulk load: schema present, empty (or truncated with `force`),
 * searchdesk's schema indexes dropped while rows go in and rebuilt afterwards (one index build
 * is far cheaper than maintaining a trigram GIN index row by row), sequences moved past the
 * explicit ids, and VACUUM ANALYZE so plans and visibility are those of a settled database.
 */
import pg from 'pg';
import { applySchema, schemaSql } from '../../src/db/schema.js';
import { TABLES } from './scale.js';

/** Where to generate: a pool (statements then run on several connections at once) or one client. */
export type GeneratorDb = pg.Pool | pg.ClientBase;

/** One connection the generator works on. */
export interface Session {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export interface Sessions {
  sessions: Session[];
  close: () => Promise<void>;
}

/**
 * `concurrency` connections of a pool (one of a client), with JIT off: the generating statements
 * are large expressions that JIT compilation (triggered by their cost estimates) slows down
 * tenfold. The settings are reset before the connections go back.
 */
export async function openSessions(db: GeneratorDb, concurrency: number, maintenanceWorkMem: string): Promise<Sessions> {
  if (!/^\d+\s*[kMG]B$/.test(maintenanceWorkMem))
    throw new Error(`maintenanceWorkMem must look like 512MB: ${maintenanceWorkMem}`);
  const clients: pg.ClientBase[] = [];
  if (db instanceof pg.Pool) for (let i = 0; i < concurrency; i++) clients.push(await db.connect());
  else clients.push(db);
  const sessions = clients.map((c): Session => ({ query: (text, values) => c.query(text, values) }));
  for (const s of sessions) await s.query(`SET jit = off; SET maintenance_work_mem = '${maintenanceWorkMem}'`);
  return {
    sessions,
    close: async () => {
      for (const c of clients) {
        const broken = await c.query('RESET jit; RESET maintenance_work_mem').then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        );
        if (db instanceof pg.Pool) (c as pg.PoolClient).release(broken);
      }
    },
  };
}

/** The database already holds rows and `force` was not given. */
export class DatabaseNotEmptyError extends Error {}

/** Creates searchdesk's schema when one of its tables is missing. */
export async function ensureSchema(db: Session): Promise<boolean> {
  const regclasses = TABLES.map((t) => `to_regclass('public.${t}') IS NULL`).join(' OR ');
  const { rows } = await db.query(`SELECT (${regclasses}) AS missing`);
  if (!(rows[0] as { missing: boolean }).missing) return false;
  await applySchema(async (sql) => {
    await db.query(sql);
  });
  return true;
}

/** Refuses a database with rows in any generated table, or truncates them all with `force`. */
export async function ensureEmpty(db: Session, force: boolean): Promise<void> {
  const checks = TABLES.map((t) => `SELECT '${t}' AS t WHERE EXISTS (SELECT 1 FROM ${t})`).join(' UNION ALL ');
  const { rows } = await db.query(checks);
  const filled = (rows as Array<{ t: string }>).map((r) => r.t);
  if (filled.length === 0) return;
  if (!force) {
    throw new DatabaseNotEmptyError(`the database already has rows in ${filled.join(', ')}: pass --force to truncate them`);
  }
  await db.query(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY`);
}

export interface SchemaIndex {
  name: string;
  create: string;
}

/** The `CREATE INDEX IF NOT EXISTS` statements of searchdesk's schema. */
export function schemaIndexes(): SchemaIndex[] {
  const found: SchemaIndex[] = [];
  for (const m of schemaSql().matchAll(/CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)[^;]*;/g)) {
    found.push({ name: m[1]!, create: m[0] });
  }
  return found;
}

export async function dropSchemaIndexes(db: Session): Promise<void> {
  await db.query(
    schemaIndexes()
      .map((i) => `DROP INDEX IF EXISTS ${i.name};`)
      .join('\n'),
  );
}

/** Sets every generated table's id sequence past its largest id, so later inserts do not collide. */
export async function resetSequences(db: Session): Promise<void> {
  const statements = TABLES.map(
    (t) => `SELECT setval(pg_get_serial_sequence('${t}', 'id'), coalesce((SELECT max(id) FROM ${t}), 0) + 1, false);`,
  );
  await db.query(statements.join('\n'));
}

/** Creates the target database when it does not exist yet (connecting to `postgres` on the same server). */
export async function ensureDatabase(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const server = new pg.Client({ connectionString: target.toString() });
  await server.connect();
  try {
    await server.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    process.stderr.write(`created database ${name}\n`);
  } finally {
    await server.end();
  }
}
