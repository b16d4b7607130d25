/**
 * The data shapes `npm run bench:data` can generate, and where a generated database says which one
 * it holds. `default` is the shape the search plans were tuned on. `skewed` is chosen to break
 * that tuning: names from a few hundred first and last names (the common ones shared by thousands
 * of contacts at M), unique e-mails, a message vocabulary whose few head words are in most
 * messages, conversations concentrated on a few contacts, and the help desk's full index layout
 * on the searched tables (HELPDESK_EXTRA_INDEXES) besides the schema's.
 */
import type { Session } from './database.js';

export const SHAPES = ['default', 'skewed'] as const;
export type Shape = (typeof SHAPES)[number];

export function isShape(s: string): s is Shape {
  return (SHAPES as readonly string[]).includes(s);
}

/** What a generated database records about itself (its comment, `COMMENT ON DATABASE`). */
export interface DataRecord {
  generator: 'searchdesk bench:data';
  shape: Shape;
  /** S, M or L; `custom` for a ScaleSpec passed from code. */
  scale: string;
  seed: number;
  /** Where generated time ends (ISO). */
  now: string;
}

/**
 * Indexes the help desk (Chatwoot's db/schema.rb) has on the searched tables beyond those in
 * searchdesk's schema.sql, with the help desk's names. The skewed shape builds them, so its plans
 * (searchdesk's and the help desk's SQL alike) see what a production database offers: a unique
 * e-mail per account, lower(email), the sender and created_at indexes of messages, and so on.
 * Columns the bench schema lacks (contact_type, blocked, uuid, content_type, source_id) are left out.
 */
export const HELPDESK_EXTRA_INDEXES: ReadonlyArray<{ name: string; create: string }> = [
  ['index_contacts_on_lower_email_account_id', 'contacts (lower((email)::text), account_id)'],
  [
    'index_contacts_on_nonempty_fields',
    "contacts (account_id, email, phone_number, identifier) WHERE ((email)::text <> ''::text) OR ((phone_number)::text <> ''::text) OR ((identifier)::text <> ''::text)",
  ],
  [
    'index_resolved_contact_account_id',
    "contacts (account_id) WHERE ((email)::text <> ''::text) OR ((phone_number)::text <> ''::text) OR ((identifier)::text <> ''::text)",
  ],
  ['uniq_email_per_account_contact', 'contacts (email, account_id)', true],
  ['uniq_identifier_per_account_contact', 'contacts (identifier, account_id)', true],
  ['index_contacts_on_phone_number_and_account_id', 'contacts (phone_number, account_id)'],
  ['index_conversations_on_id_and_account_id', 'conversations (account_id, id)'],
  ['index_conversations_on_inbox_id', 'conversations (inbox_id)'],
  ['index_messages_on_account_id', 'messages (account_id)'],
  ['index_messages_on_conversation_account_type_created', 'messages (conversation_id, account_id, message_type, created_at)'],
  ['index_messages_on_created_at', 'messages (created_at)'],
  ['index_messages_on_inbox_id', 'messages (inbox_id)'],
  ['index_messages_on_sender_type_and_sender_id', 'messages (sender_type, sender_id)'],
  ['index_articles_on_portal_id', 'articles (portal_id)'],
  ['index_articles_on_status', 'articles (status)'],
].map(([name, on, unique]) => ({
  name: name as string,
  create: `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name as string} ON ${on as string};`,
}));

/** Drops the extra help desk indexes (a database regenerated with `force` gets exactly its shape's). */
export async function dropExtraIndexes(db: Session): Promise<void> {
  await db.query(HELPDESK_EXTRA_INDEXES.map((i) => `DROP INDEX IF EXISTS ${i.name};`).join('\n'));
}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Records the data set in the database's comment. Needs the database's owner (the generator
 * creates the database it fills); without that right it returns the error's message and the
 * data stay unrecorded.
 */
export async function recordData(db: Session, record: DataRecord): Promise<string | undefined> {
  // COMMENT takes a literal database name, hence the dynamic statement.
  const sql = `DO $$ BEGIN EXECUTE format('COMMENT ON DATABASE %I IS %L', current_database(), ${quote(JSON.stringify(record))}); END $$`;
  return db.query(sql).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
}

interface Queryable {
  query(text: string): Promise<{ rows: unknown[] }>;
}

/** The data set a database records, if `bench:data` generated it with a shape. */
export async function readData(db: Queryable): Promise<DataRecord | undefined> {
  const { rows } = await db.query(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`,
  );
  const comment = (rows[0] as { comment: string | null } | undefined)?.comment;
  if (!comment) return undefined;
  try {
    const parsed = JSON.parse(comment) as Partial<DataRecord>;
    return parsed.generator === 'searchdesk bench:data' && isShape(String(parsed.shape)) ? (parsed as DataRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** One line for a bench's header: the shape and how the data were generated. */
export function describeData(record: DataRecord | undefined): string {
  if (!record) return 'not recorded (a database generated before bench:data recorded shapes has the default shape)';
  return `${record.shape} (bench:data --scale ${record.scale} --seed ${record.seed} --now ${record.now})`;
}
