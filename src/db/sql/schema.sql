-- searchdesk's own schema: a strict subset of the help desk's production schema
-- (same table names, column names, types and enum integers), so the same SQL runs on both.
-- Used by the tests, the embedded default and `searchdesk db setup` for standalone installs.
-- Every statement is idempotent.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE IF NOT EXISTS accounts (
  id serial PRIMARY KEY,
  name varchar NOT NULL,
  status integer DEFAULT 0,                 -- 0 active, 1 suspended
  feature_flags bigint NOT NULL DEFAULT 0,  -- bit 2^41 search_with_gin, bit 2^52 advanced_search
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);

CREATE TABLE IF NOT EXISTS users (
  id serial PRIMARY KEY,
  name varchar NOT NULL,
  display_name varchar,
  email varchar,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);

CREATE TABLE IF NOT EXISTS account_users (
  id bigserial PRIMARY KEY,
  account_id bigint,
  user_id bigint,
  role integer DEFAULT 0,                   -- 0 agent, 1 administrator
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX IF NOT EXISTS uniq_user_id_per_account_id ON account_users (account_id, user_id);

CREATE TABLE IF NOT EXISTS access_tokens (
  id bigserial PRIMARY KEY,
  owner_type varchar,                       -- User, AgentBot, PlatformApp
  owner_id bigint,
  token varchar,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX IF NOT EXISTS index_access_tokens_on_token ON access_tokens (token);

CREATE TABLE IF NOT EXISTS inboxes (
  id serial PRIMARY KEY,
  account_id integer NOT NULL,
  name varchar NOT NULL,
  channel_type varchar,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX IF NOT EXISTS index_inboxes_on_account_id ON inboxes (account_id);

CREATE TABLE IF NOT EXISTS inbox_members (
  id serial PRIMARY KEY,
  user_id integer NOT NULL,
  inbox_id integer NOT NULL,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX IF NOT EXISTS index_inbox_members_on_inbox_id_and_user_id ON inbox_members (inbox_id, user_id);

CREATE TABLE IF NOT EXISTS teams (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL,
  name varchar NOT NULL,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);

CREATE TABLE IF NOT EXISTS contacts (
  id serial PRIMARY KEY,
  account_id integer NOT NULL,
  name varchar DEFAULT '',
  email varchar,
  phone_number varchar,
  identifier varchar,
  additional_attributes jsonb DEFAULT '{}'::jsonb,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  last_activity_at timestamp
);
CREATE INDEX IF NOT EXISTS index_contacts_on_account_id ON contacts (account_id);
CREATE INDEX IF NOT EXISTS index_contacts_on_account_id_and_last_activity_at
  ON contacts (account_id, last_activity_at DESC NULLS LAST);
CREATE INDEX IF NOT EXISTS index_contacts_on_name_email_phone_number_identifier
  ON contacts USING gin (name gin_trgm_ops, email gin_trgm_ops, phone_number gin_trgm_ops, identifier gin_trgm_ops);

CREATE TABLE IF NOT EXISTS conversations (
  id serial PRIMARY KEY,
  account_id integer NOT NULL,
  inbox_id integer NOT NULL,
  display_id integer NOT NULL,
  status integer NOT NULL DEFAULT 0,        -- 0 open, 1 resolved, 2 pending, 3 snoozed
  contact_id bigint,
  assignee_id integer,
  team_id bigint,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  last_activity_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE UNIQUE INDEX IF NOT EXISTS index_conversations_on_account_id_and_display_id ON conversations (account_id, display_id);
CREATE INDEX IF NOT EXISTS conv_acid_inbid_stat_asgnid_idx ON conversations (account_id, inbox_id, status, assignee_id);
CREATE INDEX IF NOT EXISTS index_conversations_on_contact_id ON conversations (contact_id);
-- Triage columns (contract §9.3), added here rather than in CREATE TABLE so an existing database
-- of an earlier searchdesk (the embedded demo's data directory) gains them too.
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS priority integer;              -- 0 low, 1 medium, 2 high, 3 urgent
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS waiting_since timestamp;
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS snoozed_until timestamp;
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS first_reply_created_at timestamp;
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS custom_attributes jsonb DEFAULT '{}'::jsonb;
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS cached_label_list text;       -- the help desk's cache: 'a, b'
CREATE INDEX IF NOT EXISTS index_conversations_on_account_id ON conversations (account_id);
CREATE INDEX IF NOT EXISTS index_conversations_on_assignee_id_and_account_id ON conversations (assignee_id, account_id);
CREATE INDEX IF NOT EXISTS index_conversations_on_team_id ON conversations (team_id);
CREATE INDEX IF NOT EXISTS index_conversations_on_priority ON conversations (priority);
CREATE INDEX IF NOT EXISTS index_conversations_on_status_and_account_id ON conversations (status, account_id);
CREATE INDEX IF NOT EXISTS index_conversations_on_status_and_priority ON conversations (status, priority);
CREATE INDEX IF NOT EXISTS index_conversations_on_first_reply_created_at ON conversations (first_reply_created_at);
CREATE INDEX IF NOT EXISTS index_conversations_on_waiting_since ON conversations (waiting_since);

CREATE TABLE IF NOT EXISTS messages (
  id serial PRIMARY KEY,
  account_id integer NOT NULL,
  inbox_id integer NOT NULL,
  conversation_id integer NOT NULL,
  content text,
  message_type integer NOT NULL,            -- 0 incoming, 1 outgoing, 2 activity, 3 template
  private boolean NOT NULL DEFAULT false,
  sender_type varchar,                      -- Contact, User, AgentBot
  sender_id bigint,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX IF NOT EXISTS index_messages_on_account_id_and_inbox_id ON messages (account_id, inbox_id);
CREATE INDEX IF NOT EXISTS index_messages_on_account_created_type ON messages (account_id, created_at, message_type);
CREATE INDEX IF NOT EXISTS index_messages_on_conversation_id ON messages (conversation_id);
CREATE INDEX IF NOT EXISTS index_messages_on_content ON messages USING gin (content gin_trgm_ops);

CREATE TABLE IF NOT EXISTS portals (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  name varchar NOT NULL,
  slug varchar NOT NULL,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);

ALTER TABLE portals ADD COLUMN IF NOT EXISTS custom_domain varchar;

CREATE TABLE IF NOT EXISTS categories (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  portal_id integer NOT NULL,
  name varchar,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);

CREATE TABLE IF NOT EXISTS articles (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  portal_id integer NOT NULL,
  category_id integer,
  title varchar,
  description text,
  content text,
  status integer,                           -- 0 draft, 1 published, 2 archived
  locale varchar DEFAULT 'en' NOT NULL,
  slug varchar NOT NULL,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX IF NOT EXISTS index_articles_on_account_id ON articles (account_id);

-- Labels (contract §9.2): the account's label directory, and the help desk's tagging tables
-- (acts-as-taggable-on: `tags` is shared by every account, a conversation's labels are its
-- taggings with context 'labels').
CREATE TABLE IF NOT EXISTS labels (
  id bigserial PRIMARY KEY,
  title varchar,
  description text,
  color varchar NOT NULL DEFAULT '#1f93ff',
  show_on_sidebar boolean,
  account_id bigint,
  created_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC'),
  updated_at timestamp NOT NULL DEFAULT (now() AT TIME ZONE 'UTC')
);
CREATE INDEX IF NOT EXISTS index_labels_on_account_id ON labels (account_id);
CREATE UNIQUE INDEX IF NOT EXISTS index_labels_on_title_and_account_id ON labels (title, account_id);

CREATE TABLE IF NOT EXISTS tags (
  id serial PRIMARY KEY,
  name varchar,
  taggings_count integer DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS index_tags_on_name ON tags (name);

CREATE TABLE IF NOT EXISTS taggings (
  id serial PRIMARY KEY,
  tag_id integer,
  taggable_type varchar,
  taggable_id integer,
  tagger_type varchar,
  tagger_id integer,
  context varchar(128),
  created_at timestamp
);
CREATE UNIQUE INDEX IF NOT EXISTS taggings_idx
  ON taggings (tag_id, taggable_id, taggable_type, context, tagger_id, tagger_type);
CREATE INDEX IF NOT EXISTS index_taggings_on_taggable_id_and_taggable_type_and_context
  ON taggings (taggable_id, taggable_type, context);
CREATE INDEX IF NOT EXISTS index_taggings_on_tag_id ON taggings (tag_id);
