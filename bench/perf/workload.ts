/**
 * Benchmark workloads drawn from the data: rows of the large account (id 1) are sampled with a
 * seeded PRNG (ids picked in JS, rows read by id), and queries are cut from what those rows hold —
 * full names, frequent first names, e-mail fragments and domains, identifiers, phone digits,
 * display ids, common and rare message words, order/invoice codes — with the filters each tool
 * takes. The same seed and data give the same queries.
 */
import type pg from 'pg';
import { Random } from '../../src/db/demo/random.js';
import { splitWords } from '../../src/search/text.js';
import { WORDS } from '../generator/vocabulary.js';

export type ToolName = 'search_contacts' | 'search_conversations' | 'search_messages' | 'search_articles' | 'search_all';
export const TOOL_NAMES: readonly ToolName[] = [
  'search_contacts',
  'search_conversations',
  'search_messages',
  'search_articles',
  'search_all',
];
export type Role = 'admin' | 'agent';

export interface BenchQuery {
  tool: ToolName;
  /** What the query exercises (selective name, common term, display id, filter …). */
  kind: string;
  role: Role;
  /** Tool arguments without account_id. */
  args: Record<string, string | number>;
}

export interface Workload {
  accountId: number;
  /** Unix seconds of the newest message: "now" of the data. */
  dataNow: number;
  byTool: Record<ToolName, BenchQuery[]>;
}

const DAY = 86_400;
const RANK = new Map(WORDS.map((w, i) => [w, i]));
const COMMON_RANK = 40;
const RARE_RANK = 1_500;

interface Sampler {
  pool: pg.Pool;
  rnd: Random;
  accountId: number;
}

/** Ids of `table` in account 1 picked at random (dense id ranges), read back in pick order. */
async function sampleRows<R extends { id: string | number }>(
  s: Sampler,
  table: string,
  columns: string,
  count: number,
  extraWhere = 'true',
  oversample = 4,
): Promise<R[]> {
  const range = await s.pool.query<{ lo: string; hi: string }>(
    `SELECT min(id) AS lo, max(id) AS hi FROM ${table} WHERE account_id = $1`,
    [s.accountId],
  );
  const lo = Number(range.rows[0]?.lo);
  const hi = Number(range.rows[0]?.hi);
  const ids = Array.from({ length: count * oversample }, () => s.rnd.int(lo, hi));
  const res = await s.pool.query<R>(
    `SELECT ${columns} FROM ${table} t WHERE t.account_id = $1 AND t.id = ANY($2::bigint[]) AND ${extraWhere}`,
    [s.accountId, ids],
  );
  const byId = new Map(res.rows.map((r) => [Number(r.id), r]));
  const out: R[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    const row = byId.get(id);
    if (row && !seen.has(id)) {
      out.push(row);
      seen.add(id);
    }
    if (out.length >= count) break;
  }
  return out;
}

const roleOf = (i: number): Role => (i % 3 === 2 ? 'agent' : 'admin');

interface ContactRow {
  id: string;
  name: string | null;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
}

/** Contact-derived terms by kind; `null` when the row has no such value. */
function contactTerms(c: ContactRow, rnd: Random): Array<[kind: string, q: string | null]> {
  const local = c.email?.split('@')[0] ?? null;
  const domain = c.email?.split('@')[1] ?? null;
  const person = c.name !== null && !/-\d{4}$/.test(c.name);
  return [
    ['full name (selective)', person ? c.name : null],
    ['last name', person ? (c.name?.split(' ').slice(1).join(' ') ?? null) : null],
    ['email fragment', local && local.length >= 5 ? local.slice(0, Math.max(5, Math.ceil(local.length * 0.7))) : null],
    ['email domain', domain ? domain.replace(/\.example$/, '') : null],
    ['identifier', c.identifier],
    ['phone digits', c.phone_number ? c.phone_number.slice(-7) : null],
    ['visitor name', !person ? c.name : null],
    ['name prefix', person && c.name ? c.name.slice(0, rnd.int(3, 5)) : null],
  ];
}

/** Up to `n` queries cycling through `kinds`, each taking the next row that has a value for that kind. */
function cycleKinds<T>(rows: T[], n: number, terms: (row: T) => Array<[string, string | null]>): Array<[string, string, T]> {
  const out: Array<[string, string, T]> = [];
  const kinds = rows.length > 0 ? terms(rows[0] as T).map(([k]) => k) : [];
  let r = 0;
  for (let i = 0; out.length < n && i < n * 4 && rows.length > 0; i++) {
    const kind = kinds[i % kinds.length] as string;
    for (let tries = 0; tries < rows.length; tries++) {
      const row = rows[r++ % rows.length] as T;
      const q = terms(row).find(([k]) => k === kind)?.[1];
      if (q) {
        out.push([kind, q, row]);
        break;
      }
    }
  }
  return out;
}

export async function buildWorkload(
  pool: pg.Pool,
  opts: { seed: number; accountId: number; perTool: number; agentInboxIds: number[] },
): Promise<Workload> {
  const s: Sampler = { pool, rnd: new Random(opts.seed), accountId: opts.accountId };
  const n = opts.perTool;
  const nowRow = await pool.query<{ now: string; activity: string }>(
    `SELECT floor(extract(epoch FROM (SELECT max(created_at) FROM messages WHERE account_id = $1)))::bigint AS now,
            floor(extract(epoch FROM (SELECT max(last_activity_at) FROM contacts WHERE account_id = $1)))::bigint AS activity`,
    [opts.accountId],
  );
  const dataNow = Number(nowRow.rows[0]?.now);
  const activityNow = Number(nowRow.rows[0]?.activity);

  // Frequent first names and mail domains, from a sample of contacts.
  const contacts = await sampleRows<ContactRow>(s, 'contacts', 'id, name, email, phone_number, identifier', n * 4);
  const firstNames = new Map<string, number>();
  for (const c of contacts)
    if (c.name && !/-\d{4}$/.test(c.name)) {
      const f = c.name.split(' ')[0] as string;
      firstNames.set(f, (firstNames.get(f) ?? 0) + 1);
    }
  const commonFirst = [...firstNames.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5);

  // --- contacts
  const contactQueries: BenchQuery[] = cycleKinds(contacts, n - 6, (c) => contactTerms(c, s.rnd)).map(([kind, q], i) => ({
    tool: 'search_contacts',
    kind,
    role: roleOf(i),
    args: { q },
  }));
  for (const [i, [first]] of commonFirst.slice(0, 3).entries())
    contactQueries.push({ tool: 'search_contacts', kind: 'common first name', role: roleOf(i), args: { q: first } });
  contactQueries.push({ tool: 'search_contacts', kind: 'common term "example"', role: 'admin', args: { q: 'example' } });
  contactQueries.push({
    tool: 'search_contacts',
    kind: 'full name + since/until',
    role: 'admin',
    args: { q: commonFirst[0]?.[0] ?? 'a', since: activityNow - 30 * DAY, until: activityNow - 2 * DAY },
  });
  contactQueries.push({
    tool: 'search_contacts',
    kind: 'common term + since',
    role: 'agent',
    args: { q: 'example', since: activityNow - 7 * DAY },
  });

  // --- conversations: display ids and the contact's fields
  interface ConvRow {
    id: string;
    display_id: string;
    inbox_id: string;
    name: string | null;
    email: string | null;
    phone_number: string | null;
    identifier: string | null;
  }
  const convs = await sampleRows<ConvRow>(
    s,
    'conversations',
    `id, display_id, inbox_id, (SELECT name FROM contacts c WHERE c.id = t.contact_id) AS name,
     (SELECT email FROM contacts c WHERE c.id = t.contact_id) AS email,
     (SELECT phone_number FROM contacts c WHERE c.id = t.contact_id) AS phone_number,
     (SELECT identifier FROM contacts c WHERE c.id = t.contact_id) AS identifier`,
    n * 2,
  );
  const convTerms = (c: ConvRow): Array<[string, string | null]> => [
    ['display id (numeric)', String(c.display_id)],
    ...contactTerms({ id: c.id, name: c.name, email: c.email, phone_number: c.phone_number, identifier: c.identifier }, s.rnd)
      .filter(([k]) => ['full name (selective)', 'email fragment', 'identifier', 'email domain'].includes(k))
      .map(([k, q]): [string, string | null] => [`contact ${k}`, q]),
    ['display id prefix', String(c.display_id).slice(0, 4)],
  ];
  const convQueries: BenchQuery[] = cycleKinds(convs, n - 4, convTerms).map(([kind, q], i) => ({
    tool: 'search_conversations',
    kind,
    role: roleOf(i),
    args: { q },
  }));
  convQueries.push({
    tool: 'search_conversations',
    kind: 'common first name',
    role: 'admin',
    args: { q: commonFirst[0]?.[0] ?? 'a' },
  });
  convQueries.push({ tool: 'search_conversations', kind: 'common term "example"', role: 'agent', args: { q: 'example' } });
  convQueries.push({
    tool: 'search_conversations',
    kind: 'contact name + since/until',
    role: 'admin',
    args: { q: convs[0]?.name ?? 'a', since: activityNow - 60 * DAY, until: activityNow },
  });
  convQueries.push({
    tool: 'search_conversations',
    kind: 'common first name + since',
    role: 'agent',
    args: { q: commonFirst[1]?.[0] ?? 'a', since: activityNow - 14 * DAY },
  });

  // --- messages: words from recent searchable messages (agent queries from the agent's inboxes)
  interface MsgRow {
    id: string;
    content: string;
    inbox_id: string;
    sender_type: string | null;
    sender_id: string | null;
    created_s: string;
  }
  const recent = `t.message_type IN (0, 1) AND t.content IS NOT NULL AND t.created_at >= to_timestamp(${dataNow - 85 * DAY}) AT TIME ZONE 'UTC'`;
  const msgCols = `id, content, inbox_id, sender_type, sender_id, floor(extract(epoch FROM created_at))::bigint AS created_s`;
  const msgs = await sampleRows<MsgRow>(s, 'messages', msgCols, n * 3, recent, 6);
  const agentMsgs = await sampleRows<MsgRow>(
    s,
    'messages',
    msgCols,
    n,
    `${recent} AND t.inbox_id = ANY('{${opts.agentInboxIds.join(',')}}'::bigint[])`,
    40,
  );
  const pickWord = (content: string, test: (rank: number) => boolean): string | null => {
    const words = splitWords(content).filter((w) => {
      const r = RANK.get(w);
      return r !== undefined && test(r);
    });
    return words.length > 0 ? s.rnd.pick(words) : null;
  };
  const msgTerms = (m: MsgRow): Array<[string, string | null]> => {
    const common = pickWord(m.content, (r) => r < COMMON_RANK);
    const rare = pickWord(m.content, (r) => r >= RARE_RANK);
    const medium = pickWord(m.content, (r) => r >= COMMON_RANK && r < RARE_RANK);
    const code = /\b(ORD-\d+|INV-\d+|TCK-\d+|1Z[0-9A-F]{10})\b/.exec(m.content)?.[1] ?? null;
    const sender = m.sender_type === 'Contact' ? `contact:${m.sender_id}` : m.sender_id ? `agent:${m.sender_id}` : null;
    return [
      ['common word', common],
      ['rare word', rare],
      ['two words (common + rare)', common && rare ? `${common} ${rare}` : null],
      ['medium word', medium],
      ['word prefix', medium && medium.length > 5 ? medium.slice(0, 4) : null],
      ['order/invoice code', code],
      ['rare word + from=sender', rare && sender ? `${rare}\u0000${sender}` : null],
      ['medium word + inbox_id', medium ? `${medium}\u0000inbox:${m.inbox_id}` : null],
      ['common word + since/until', common ? `${common}\u0000window:${m.created_s}` : null],
    ];
  };
  const toMessageArgs = (q: string): Record<string, string | number> => {
    const [text, filter] = q.split('\u0000') as [string, string | undefined];
    if (!filter) return { q: text };
    if (filter.startsWith('inbox:')) return { q: text, inbox_id: Number(filter.slice(6)) };
    if (filter.startsWith('window:')) {
      const at = Number(filter.slice(7));
      return { q: text, since: Math.max(at - 10 * DAY, dataNow - 80 * DAY), until: at + DAY };
    }
    return { q: text, from: filter };
  };
  const adminMsgQueries = cycleKinds(msgs, n - Math.floor(n / 3), msgTerms);
  const agentMsgQueries = cycleKinds(agentMsgs, Math.floor(n / 3), msgTerms);
  const messageQueries: BenchQuery[] = [
    ...adminMsgQueries.map(([kind, q]): BenchQuery => ({ tool: 'search_messages', kind, role: 'admin', args: toMessageArgs(q) })),
    ...agentMsgQueries.map(([kind, q]): BenchQuery => ({ tool: 'search_messages', kind, role: 'agent', args: toMessageArgs(q) })),
  ];

  // --- articles: words of titles and content
  interface ArticleRow {
    id: string;
    title: string | null;
    content: string | null;
  }
  const articles = await sampleRows<ArticleRow>(s, 'articles', 'id, title, content', n, 'true', 3);
  const articleTerms = (a: ArticleRow): Array<[string, string | null]> => {
    const titleWords = splitWords(a.title ?? '').filter((w) => w.length > 3);
    const contentWords = splitWords(a.content ?? '').filter((w) => w.length > 4);
    const rareTitle = titleWords.filter((w) => (RANK.get(w) ?? 0) >= RARE_RANK);
    return [
      ['title word (product name)', rareTitle.length > 0 ? s.rnd.pick(rareTitle) : null],
      ['two title words', titleWords.length >= 2 ? titleWords.slice(0, 2).join(' ') : null],
      ['content word', contentWords.length > 0 ? s.rnd.pick(contentWords) : null],
      ['word prefix', rareTitle.length > 0 ? s.rnd.pick(rareTitle).slice(0, 4) : null],
    ];
  };
  const articleQueries: BenchQuery[] = cycleKinds(articles, n - 2, articleTerms).map(([kind, q], i) => ({
    tool: 'search_articles',
    kind,
    role: roleOf(i),
    args: { q },
  }));
  articleQueries.push({ tool: 'search_articles', kind: 'common word "account"', role: 'admin', args: { q: 'account' } });
  articleQueries.push({ tool: 'search_articles', kind: 'common phrase "set up"', role: 'agent', args: { q: 'set up' } });

  // --- search_all: a mix of what people type in the global box
  const allQueries: BenchQuery[] = [];
  const mix = [...contactQueries, ...convQueries, ...messageQueries].filter(
    (q) => !q.args.since && !q.args.from && !q.args.inbox_id,
  );
  for (let i = 0; allQueries.length < n && mix.length > 0 && i < n * 4; i++) {
    const q = s.rnd.pick(mix);
    allQueries.push({
      tool: 'search_all',
      kind: `${q.tool.replace('search_', '')}: ${q.kind}`,
      role: roleOf(i),
      args: { q: q.args.q as string },
    });
  }
  return {
    accountId: opts.accountId,
    dataNow,
    byTool: {
      search_contacts: contactQueries,
      search_conversations: convQueries,
      search_messages: messageQueries,
      search_articles: articleQueries,
      search_all: allQueries,
    },
  };
}
