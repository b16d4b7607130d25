/**
 * A readable fixture builder: each test states only what it needs; everything else gets a
 * sensible default. Times are given as Unix seconds and stored as UTC timestamps.
 */
import type pg from 'pg';
import { FEATURE_BITS } from '../../src/auth/access.js';

const NOW = () => Math.floor(Date.now() / 1000);
export const DAY = 86_400;

type Row = Record<string, unknown>;

/** Columns given as Unix seconds: every `*_at`, and the triage times without that suffix. */
const isTime = (key: string) => key.endsWith('_at') || key === 'waiting_since' || key === 'snoozed_until';

export class Fixture {
  private seq = 0;
  constructor(private readonly pool: pg.Pool) {}

  private async insert(table: string, row: Row): Promise<number> {
    const keys = Object.keys(row).filter((k) => row[k] !== undefined);
    const values = keys.map((k) => row[k]);
    const placeholders = keys.map((k, i) => (isTime(k) ? `to_timestamp($${i + 1}) AT TIME ZONE 'UTC'` : `$${i + 1}`));
    const res = await this.pool.query<{ id: string }>(
      `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING id`,
      values,
    );
    return Number(res.rows[0]!.id);
  }

  next(): number {
    return ++this.seq;
  }

  account(
    opts: { name?: string; advancedSearch?: boolean; searchWithGin?: boolean; suspended?: boolean; extraFlags?: bigint } = {},
  ) {
    let flags = opts.extraFlags ?? 0n;
    if (opts.advancedSearch ?? true) flags |= FEATURE_BITS.advancedSearch;
    if (opts.searchWithGin) flags |= FEATURE_BITS.searchWithGin;
    return this.insert('accounts', {
      name: opts.name ?? `Account ${this.next()}`,
      status: opts.suspended ? 1 : 0,
      feature_flags: flags.toString(),
    });
  }

  user(opts: { name?: string; email?: string; display_name?: string } = {}) {
    const n = this.next();
    return this.insert('users', {
      name: opts.name ?? `Agent ${n}`,
      email: opts.email ?? `agent${n}@example.test`,
      display_name: opts.display_name,
    });
  }

  /** Adds a user to an account; role 'administrator' or 'agent'. */
  member(accountId: number, userId: number, role: 'administrator' | 'agent' = 'agent') {
    return this.insert('account_users', { account_id: accountId, user_id: userId, role: role === 'administrator' ? 1 : 0 });
  }

  async token(ownerId: number, ownerType = 'User'): Promise<string> {
    const token = `tok_${ownerType}_${ownerId}_${this.next()}_${Math.random().toString(36).slice(2)}`;
    await this.insert('access_tokens', { owner_type: ownerType, owner_id: ownerId, token });
    return token;
  }

  /** An account (with advanced_search) whose administrator is a new user, and one inbox of it. */
  async administeredInbox(): Promise<{ account: number; user: number; inbox: number }> {
    const account = await this.account({ advancedSearch: true });
    const user = await this.user();
    await this.member(account, user, 'administrator');
    return { account, user, inbox: await this.inbox(account) };
  }

  inbox(accountId: number, opts: { name?: string; channel_type?: string } = {}) {
    return this.insert('inboxes', {
      account_id: accountId,
      name: opts.name ?? `Inbox ${this.next()}`,
      channel_type: opts.channel_type ?? 'Channel::WebWidget',
    });
  }

  inboxMember(inboxId: number, userId: number) {
    return this.insert('inbox_members', { inbox_id: inboxId, user_id: userId });
  }

  team(accountId: number, name = `Team ${this.next()}`) {
    return this.insert('teams', { account_id: accountId, name });
  }

  contact(
    accountId: number,
    opts: {
      name?: string | null;
      email?: string | null;
      phone_number?: string | null;
      identifier?: string | null;
      additional_attributes?: object | null;
      created_at?: number;
      last_activity_at?: number | null;
    } = {},
  ) {
    return this.insert('contacts', {
      account_id: accountId,
      name: opts.name === undefined ? `Contact ${this.next()}` : opts.name,
      email: opts.email ?? null,
      phone_number: opts.phone_number ?? null,
      identifier: opts.identifier ?? null,
      additional_attributes: opts.additional_attributes === undefined ? {} : opts.additional_attributes,
      created_at: opts.created_at ?? NOW() - DAY,
      last_activity_at: opts.last_activity_at === undefined ? NOW() - DAY : opts.last_activity_at,
    });
  }

  private displayIds = new Map<number, number>();

  conversation(
    accountId: number,
    inboxId: number,
    opts: {
      contact_id?: number | null;
      display_id?: number;
      status?: number;
      assignee_id?: number;
      team_id?: number;
      created_at?: number;
      last_activity_at?: number;
      /** 0 low, 1 medium, 2 high, 3 urgent. */
      priority?: number;
      waiting_since?: number;
      snoozed_until?: number;
      first_reply_created_at?: number;
      custom_attributes?: object;
    } = {},
  ) {
    const displayId = opts.display_id ?? (this.displayIds.get(accountId) ?? 0) + 1;
    this.displayIds.set(accountId, Math.max(displayId, this.displayIds.get(accountId) ?? 0));
    return this.insert('conversations', {
      account_id: accountId,
      inbox_id: inboxId,
      display_id: displayId,
      status: opts.status ?? 0,
      contact_id: opts.contact_id ?? null,
      assignee_id: opts.assignee_id,
      team_id: opts.team_id,
      created_at: opts.created_at ?? NOW() - DAY,
      last_activity_at: opts.last_activity_at ?? opts.created_at ?? NOW() - DAY,
      priority: opts.priority,
      waiting_since: opts.waiting_since,
      snoozed_until: opts.snoozed_until,
      first_reply_created_at: opts.first_reply_created_at,
      custom_attributes: opts.custom_attributes,
    });
  }

  /** A label of the account (the directory's `labels` row) and its shared `tags` row; returns the tag id. */
  async label(accountId: number, title: string, opts: { description?: string; color?: string } = {}): Promise<number> {
    await this.insert('labels', {
      account_id: accountId,
      title,
      description: opts.description ?? null,
      color: opts.color ?? '#1f93ff',
      show_on_sidebar: true,
    });
    const tag = await this.pool.query<{ id: number }>(
      `INSERT INTO tags (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
      [title],
    );
    return tag.rows[0]!.id;
  }

  /**
   * Tags a record with `title` (its tag is created when missing), as the help desk labels a
   * conversation: taggable_type `Conversation`, context `labels` unless told otherwise.
   */
  async tagging(taggableId: number, title: string, opts: { taggable_type?: string; context?: string } = {}): Promise<number> {
    const tag = await this.pool.query<{ id: number }>(
      `INSERT INTO tags (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
      [title],
    );
    await this.pool.query('UPDATE tags SET taggings_count = taggings_count + 1 WHERE id = $1', [tag.rows[0]!.id]);
    return this.insert('taggings', {
      tag_id: tag.rows[0]!.id,
      taggable_type: opts.taggable_type ?? 'Conversation',
      taggable_id: taggableId,
      context: opts.context ?? 'labels',
      created_at: NOW() - DAY,
    });
  }

  /** A message in a conversation; account and inbox are taken from the conversation. */
  async message(
    conversationId: number,
    opts: {
      content?: string | null;
      message_type?: number;
      private?: boolean;
      sender_type?: string | null;
      sender_id?: number | null;
      created_at?: number;
      updated_at?: number;
    } = {},
  ) {
    const conv = await this.pool.query<{ account_id: number; inbox_id: number }>(
      'SELECT account_id, inbox_id FROM conversations WHERE id = $1',
      [conversationId],
    );
    const { account_id, inbox_id } = conv.rows[0]!;
    const createdAt = opts.created_at ?? NOW() - DAY;
    return this.insert('messages', {
      account_id,
      inbox_id,
      conversation_id: conversationId,
      content: opts.content === undefined ? `Message ${this.next()}` : opts.content,
      message_type: opts.message_type ?? 0,
      private: opts.private ?? false,
      sender_type: opts.sender_type === undefined ? null : opts.sender_type,
      sender_id: opts.sender_id === undefined ? null : opts.sender_id,
      created_at: createdAt,
      updated_at: opts.updated_at ?? createdAt,
    });
  }

  portal(accountId: number, slug = `portal-${this.next()}`, opts: { custom_domain?: string } = {}) {
    return this.insert('portals', { account_id: accountId, name: `Portal ${slug}`, slug, custom_domain: opts.custom_domain });
  }

  category(accountId: number, portalId: number, name = `Category ${this.next()}`) {
    return this.insert('categories', { account_id: accountId, portal_id: portalId, name });
  }

  article(
    accountId: number,
    portalId: number,
    opts: {
      title?: string;
      description?: string | null;
      content?: string | null;
      status?: number;
      category_id?: number | null;
      locale?: string;
      slug?: string;
      updated_at?: number;
    } = {},
  ) {
    const n = this.next();
    return this.insert('articles', {
      account_id: accountId,
      portal_id: portalId,
      category_id: opts.category_id ?? null,
      title: opts.title ?? `Article ${n}`,
      description: opts.description ?? null,
      content: opts.content ?? null,
      status: opts.status ?? 1,
      locale: opts.locale ?? 'en',
      slug: opts.slug ?? `article-${n}`,
      created_at: (opts.updated_at ?? NOW() - DAY) - 10,
      updated_at: opts.updated_at ?? NOW() - DAY,
    });
  }

  /** Runs raw SQL against the fixture database (for updates and deletes in tests). */
  sql(text: string, values: unknown[] = []) {
    return this.pool.query(text, values);
  }
}
