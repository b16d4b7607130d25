/** searchdesk's own schema (a strict subset of the help desk's), applied by `db setup` and tests. */
import { readFileSync } from 'node:fs';

/** The schema SQL, shipped next to the compiled code. */
export function schemaSql(): string {
  return readFileSync(new URL('./sql/schema.sql', import.meta.url), 'utf8');
}

/** Applies the schema with any executor of plain SQL text (pg client, PGlite, …). Idempotent. */
export async function applySchema(exec: (sql: string) => Promise<void>): Promise<void> {
  await exec(schemaSql());
}
