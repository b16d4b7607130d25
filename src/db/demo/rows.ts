/**
 * The tables the demo fills, with the SQL type of every column it writes. The loader turns each
 * table into one `INSERT … SELECT FROM jsonb_to_recordset($1)` statement, so a row's keys must be
 * columns listed here. `time` columns hold Unix seconds and are stored as UTC timestamps.
 */

export type DemoValue = string | number | boolean | null | Record<string, unknown>;
export type DemoRow = Record<string, DemoValue>;

export type ColumnType = 'integer' | 'bigint' | 'varchar' | 'text' | 'boolean' | 'jsonb' | 'time';

const stamps = { created_at: 'time', updated_at: 'time' } as const;

/** Insertion order matters only for readability: the schema has no foreign keys. */
export const DEMO_COLUMNS = {
  accounts: { id: 'integer', name: 'varchar', status: 'integer', feature_flags: 'bigint', ...stamps },
  users: { id: 'integer', name: 'varchar', display_name: 'varchar', email: 'varchar', ...stamps },
  account_users: { id: 'bigint', account_id: 'bigint', user_id: 'bigint', role: 'integer', ...stamps },
  access_tokens: { id: 'bigint', owner_type: 'varchar', owner_id: 'bigint', token: 'varchar', ...stamps },
  inboxes: { id: 'integer', account_id: 'integer', name: 'varchar', channel_type: 'varchar', ...stamps },
  inbox_members: { id: 'integer', user_id: 'integer', inbox_id: 'integer', ...stamps },
  teams: { id: 'bigint', account_id: 'bigint', name: 'varchar', ...stamps },
  contacts: {
    id: 'integer',
    account_id: 'integer',
    name: 'varchar',
    email: 'varchar',
    phone_number: 'varchar',
    identifier: 'varchar',
    additional_attributes: 'jsonb',
    last_activity_at: 'time',
    ...stamps,
  },
  conversations: {
    id: 'integer',
    account_id: 'integer',
    inbox_id: 'integer',
    display_id: 'integer',
    status: 'integer',
    contact_id: 'bigint',
    assignee_id: 'integer',
    team_id: 'bigint',
    last_activity_at: 'time',
    priority: 'integer',
    waiting_since: 'time',
    snoozed_until: 'time',
    first_reply_created_at: 'time',
    custom_attributes: 'jsonb',
    cached_label_list: 'text',
    ...stamps,
  },
  messages: {
    id: 'integer',
    account_id: 'integer',
    inbox_id: 'integer',
    conversation_id: 'integer',
    content: 'text',
    message_type: 'integer',
    private: 'boolean',
    sender_type: 'varchar',
    sender_id: 'bigint',
    ...stamps,
  },
  portals: { id: 'bigint', account_id: 'integer', name: 'varchar', slug: 'varchar', custom_domain: 'varchar', ...stamps },
  categories: { id: 'bigint', account_id: 'integer', portal_id: 'integer', name: 'varchar', ...stamps },
  articles: {
    id: 'bigint',
    account_id: 'integer',
    portal_id: 'integer',
    category_id: 'integer',
    title: 'varchar',
    description: 'text',
    content: 'text',
    status: 'integer',
    locale: 'varchar',
    slug: 'varchar',
    ...stamps,
  },
  labels: {
    id: 'bigint',
    account_id: 'bigint',
    title: 'varchar',
    description: 'text',
    color: 'varchar',
    show_on_sidebar: 'boolean',
    ...stamps,
  },
  tags: { id: 'integer', name: 'varchar', taggings_count: 'integer' },
  taggings: {
    id: 'integer',
    tag_id: 'integer',
    taggable_type: 'varchar',
    taggable_id: 'integer',
    context: 'varchar',
    created_at: 'time',
  },
} as const satisfies Record<string, Record<string, ColumnType>>;

export type DemoTable = keyof typeof DEMO_COLUMNS;
export type DemoTables = Record<DemoTable, DemoRow[]>;
