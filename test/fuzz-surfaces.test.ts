/**
 * Bad input through both surfaces of a spawned server (issue 6): fast-check properties, with a
 * fixed seed, over every parameter of every operation — wildcards, quotes, SQL and query-DSL
 * fragments, NUL, emoji, combining marks, RTL text, 10 000-character strings, numbers out of range,
 * floats, negatives, arrays and objects where scalars belong, repeated and unknown REST query
 * parameters — sent as raw query strings (REST, fetch) and as tool arguments (MCP SDK client over
 * Streamable HTTP). Every answer is either the right rows (an oracle computed here from the
 * fixture data) or the contract's 422 / tool error with a message the input justifies; never a
 * 500, never a hang, never SQL or a stack trace in a body. Article bodies too (issue 49):
 * unclosed tags, brackets and comments and deep nesting up to 1 MB, searched and read alike on
 * both surfaces. Last (issue 49), random sequences of users, guessers and bots, batches and
 * protocol versions against the rate limit and a model of it.
 */
import type { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startHttpServer } from '../src/http/server.js';
import { createTestDatabase, silentLogger, type TestDatabase } from './helpers/db.js';
import { DAY, Fixture } from './helpers/fixtures.js';
import { cliEnv, connectHttpMcp, rawRequest, REST_SUFFIX } from './helpers/spawn.js';
import { countingDb, startHttp, type HttpProcess } from './helpers/http.js';
import { asRestBody } from './helpers/mcp-normalise.js';
import {
  expectArticles,
  expectContactConversations,
  expectContacts,
  expectConversations,
  expectMessages,
  expectTranscript,
} from './helpers/oracle.js';

export const FUZZ_SEED = 20260606;
export const FUZZ_REST_RUNS = 400;
export const FUZZ_MCP_RUNS = 400;
export const FUZZ_LIMIT_RUNS = 100;
/** A request that takes longer than this is a hang. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Node's default limit on the request line plus headers; a longer request target gets a 431. */
const MAX_HEADER_BYTES = 16 * 1024;

const NOW = Math.floor(Date.now() / 1000);
const WINDOW_START = NOW - 90 * DAY;
const MAX_UNIX = 253_402_300_799;
const TOOLS = ['search_all', 'search_contacts', 'search_conversations', 'search_messages', 'search_articles'] as const;
type Tool = (typeof TOOLS)[number];
type Key = 'contacts' | 'conversations' | 'messages' | 'articles';

/** The parameters each operation accepts (contract §3 and §6), in no particular order. */
const ACCEPTS: Record<Tool, readonly string[]> = {
  search_all: ['q', 'page', 'since', 'until'],
  search_contacts: ['q', 'page', 'since', 'until'],
  search_conversations: ['q', 'page', 'since', 'until'],
  search_messages: ['q', 'page', 'from', 'inbox_id', 'since', 'until'],
  search_articles: ['q', 'page'],
};
const KEYS_OF: Record<Tool, readonly Key[]> = {
  search_all: ['contacts', 'conversations', 'messages', 'articles'],
  search_contacts: ['contacts'],
  search_conversations: ['conversations'],
  search_messages: ['messages'],
  search_articles: ['articles'],
};

const NAMES = [
  '100% Pure_Name',
  "back\\slash O'Brien",
  'Zoë "Quote" 😀',
  // Combining marks inside and at the end of words (decomposed "école", "café").
  'e\u0301cole cafe\u0301 combining',
  'مرحبا right-to-left \u202Eevil',
  "Robert'); DROP TABLE contacts;--",
  '{"match_all":{}} dsl',
  'plain person',
  '*:* OR 1=1 $1 ${jndi}',
  'a_b%c\\d <script>x</script>',
];
/** Single characters (code points) plus multi-character fragments. */
const ALPHABET = [
  ...`%_\\'";-*{}: &=#+?/aeoPr10ë😀\u0301\u202Eم`,
  ...['%2', '%00', 'OR', '1=1', '--', '$1', 'NULL', 'cole', 'pla'],
];
const SQL_AND_DSL = [
  "' OR '1'='1",
  "'; DROP TABLE messages; --",
  'UNION SELECT token FROM access_tokens',
  '$$; SELECT pg_sleep(10); $$',
  '{"query":{"match_all":{}}}',
  '{"script":{"source":"Thread.sleep(1)"}}',
  '*',
  'content:*',
  'a OR b AND NOT c',
  '\\\\%\\_',
];

let t: TestDatabase;
let server: HttpProcess;
let client: Client;
const w = {
  account: 0,
  other: 0,
  otherInbox: 0,
  agentUser: 0,
  inboxes: [] as number[],
  token: '',
  contacts: [] as Array<{ id: number; name: string; last: number }>,
  conversations: [] as Array<{ id: number; display: number; contact: number; name: string; last: number; created: number }>,
  messages: [] as Array<{ id: number; conversation: number; content: string; inbox: number; sender: number; created: number }>,
  articles: [] as Array<{ id: number; title: string; updated: number }>,
  /** Another account's contact, conversation, message and article: never readable here. */
  foreign: [] as number[],
};

beforeAll(async () => {
  t = await createTestDatabase();
  const fx = new Fixture(t.admin);
  w.account = await fx.account({ advancedSearch: true });
  w.other = await fx.account({ advancedSearch: true });
  w.otherInbox = await fx.inbox(w.other);
  const admin = await fx.user();
  w.agentUser = await fx.user();
  await fx.member(w.account, admin, 'administrator');
  await fx.member(w.account, w.agentUser, 'agent');
  w.token = await fx.token(admin);
  w.inboxes = [await fx.inbox(w.account), await fx.inbox(w.account)];
  const portal = await fx.portal(w.account);
  for (const [i, name] of NAMES.entries()) {
    const last = NOW - (i + 1) * DAY - 100;
    const contact = await fx.contact(w.account, { name, last_activity_at: last });
    w.contacts.push({ id: contact, name, last });
    const created = NOW - (i + 1) * DAY;
    const inbox = w.inboxes[i % 2]!;
    const conv = await fx.conversation(w.account, inbox, {
      contact_id: contact,
      display_id: i + 1,
      created_at: created,
      last_activity_at: created,
    });
    w.conversations.push({ id: conv, display: i + 1, contact, name, last: created, created });
    const at = created + 10;
    const message = await fx.message(conv, { content: name, created_at: at, sender_type: 'Contact', sender_id: contact });
    w.messages.push({ id: message, conversation: conv, content: name, inbox, sender: contact, created: at });
    const updated = NOW - (i + 1) * DAY;
    w.articles.push({ id: await fx.article(w.account, portal, { title: name, updated_at: updated }), title: name, updated });
  }
  // Another account's rows share every name: none may ever show up.
  const foreignContact = await fx.contact(w.other, { name: NAMES.join(' ') });
  const foreignConv = await fx.conversation(w.other, w.otherInbox, { contact_id: foreignContact, display_id: 1 });
  const foreignMessage = await fx.message(foreignConv, { content: NAMES.join(' ') });
  const foreignArticle = await fx.article(w.other, await fx.portal(w.other), { title: NAMES.join(' ') });
  w.foreign = [foreignContact, foreignConv, foreignMessage, foreignArticle];

  server = await startHttp(cliEnv({ DATABASE_URL: t.url }));
  client = await connectHttpMcp(server.url, { api_access_token: w.token });
  await client.listTools(); // the client then validates every structuredContent against its outputSchema
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await t?.drop();
});

// ---------------------------------------------------------------------------------------------
// The oracle: what the contract says the answer is, computed from the fixture data in memory.
// ---------------------------------------------------------------------------------------------

/** Parameters after validation, as the oracle understands them. */
interface Effective {
  q: string;
  page: number;
  since?: number;
  until?: number;
  inbox_id?: number;
  from?: string;
}

/** Either the effective parameters, or every contract message the input justifies. */
type Verdict = { ok: Effective } | { violations: string[] };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function senderFilter(from: string | undefined): { type: 'contact' | 'agent'; id: bigint } | undefined {
  const m = from === undefined ? null : /^(contact|agent):(\d+)$/.exec(from);
  return m ? { type: m[1] as 'contact' | 'agent', id: BigInt(m[2]!) } : undefined;
}

/** The shared oracle on the messages the filters leave (inbox, sender). */
function matchingMessages(e: Pick<Effective, 'q' | 'since' | 'until' | 'inbox_id' | 'from'>): number[] {
  const inboxes = e.inbox_id !== undefined && w.inboxes.includes(e.inbox_id) ? [e.inbox_id] : w.inboxes;
  const sender = senderFilter(e.from);
  return expectMessages(
    w.messages.filter(
      (m) => inboxes.includes(m.inbox) && (sender === undefined || (sender.type === 'contact' && sender.id === BigInt(m.sender))),
    ),
    e.q,
    { since: e.since ?? WINDOW_START, until: e.until },
  );
}

/** Every matching id, in the contract's order, per payload key (before paging): the shared oracle. */
function expectedRows(tool: Tool, e: Effective): Partial<Record<Key, number[]>> {
  const window = { since: e.since, until: e.until };
  const contacts = () =>
    expectContacts(
      w.contacts.map((c) => ({ id: c.id, texts: [c.name], last: c.last })),
      e.q,
      window,
    );
  const conversations = () =>
    expectConversations(
      w.conversations.map((c) => ({ ...c, contactTexts: [c.name] })),
      e.q,
      window,
    );
  // Titles only (no content), so every match is in the top relevance tier: newest update first.
  const articles = () =>
    expectArticles(
      w.articles.map((a) => ({ ...a, content: '' })),
      e.q,
    );
  switch (tool) {
    case 'search_all':
      return {
        contacts: contacts(),
        conversations: conversations(),
        messages: matchingMessages({ q: e.q }),
        articles: articles(),
      };
    case 'search_contacts':
      return { contacts: contacts() };
    case 'search_conversations':
      return { conversations: conversations() };
    case 'search_messages':
      return { messages: matchingMessages(e) };
    case 'search_articles':
      return { articles: articles() };
  }
}

const PAGE_MESSAGE = 'page must be an integer between 1 and 500';
const timeMessage = (name: string) =>
  `${name} must be a Unix timestamp in seconds or an ISO 8601 date or date-time (e.g. 2026-11-28 or 2026-11-28T09:00:00Z)`;

/** Checks one already-typed value against contract §3; pushes the violated rule's message. */
function checkInteger(value: unknown, min: number, max: number, message: string, violations: string[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  violations.push(message);
  return undefined;
}

function checkQ(value: unknown, violations: string[]): string {
  if (value === undefined || value === null) {
    violations.push('q is required');
    return '';
  }
  if (typeof value !== 'string') {
    violations.push('q must be a string');
    return '';
  }
  const q = value.trim();
  if (q === '') violations.push('q must not be blank');
  if (q.length > 500) violations.push('q must be at most 500 characters');
  if (q.includes('\u0000')) violations.push('q must not contain NUL characters');
  if (LONE_SURROGATE.test(q)) violations.push('q must be valid Unicode text');
  return q;
}

/**
 * The shared part of both surfaces: typed values → verdict (contract §3, §4.2's 90-day rule).
 * `violations` holds what the surface found before (unknown arguments, account_id); every
 * argument problem is reported together (issue 14), the 90-day rule only after them all.
 */
function judge(tool: Tool, input: Record<string, unknown>, violations: string[], account?: string): Verdict {
  const accepts = ACCEPTS[tool];
  const take = (key: string) => (accepts.includes(key) ? input[key] : undefined);
  const q = checkQ(input.q, violations);
  const page = checkInteger(take('page'), 1, 500, PAGE_MESSAGE, violations) ?? 1;
  const since = checkInteger(take('since'), 0, MAX_UNIX, timeMessage('since'), violations);
  const until = checkInteger(take('until'), 0, MAX_UNIX, timeMessage('until'), violations);
  const inboxId = checkInteger(take('inbox_id'), 1, Number.MAX_SAFE_INTEGER, 'inbox_id must be a positive integer', violations);
  const from = typeof take('from') === 'string' ? (take('from') as string) : undefined;
  if (violations.length > 0) return { violations };
  if (account !== undefined) return { violations: [account] };
  if (tool === 'search_messages' && since !== undefined && since < WINDOW_START)
    return { violations: ['Search is limited to the last 90 days'] };
  return { ok: { q, page, since, until, inbox_id: inboxId, from } };
}

/** Integer parameters: REST reads them from decimal text, and so does MCP (issue 14). */
const INTEGER_KEYS = new Set(['page', 'since', 'until', 'inbox_id', 'account_id', 'display_id', 'id', 'before', 'after']);
const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;
const readInteger = (key: string, v: unknown) =>
  INTEGER_KEYS.has(key) && typeof v === 'string' && INTEGER_TEXT.test(v) ? Number(v) : v;

/** REST query values of `keys`: `?x=` absent, integers from decimal text, booleans from true/false/1/0; repeats listed. */
function restInput(query: URLSearchParams, keys: readonly string[]): { input: Record<string, unknown>; repeated: string[] } {
  const input: Record<string, unknown> = {};
  const repeated: string[] = [];
  for (const key of keys) {
    const all = query.getAll(key);
    if (all.length === 0) continue;
    if (all.length > 1) {
      if (key !== 'from') repeated.push(`${key} must be given once`);
      continue;
    }
    const raw = all[0]!;
    if (raw === '' && key !== 'q') continue;
    const flag = raw.trim().toLowerCase();
    input[key] =
      key === 'include_activity'
        ? ['true', '1'].includes(flag)
          ? true
          : ['false', '0'].includes(flag)
            ? false
            : raw
        : readInteger(key, raw);
  }
  return { input, repeated };
}

/** REST: unknown parameters ignored, `?x=` absent, integers read from decimal text, repeats refused (but `from`) before anything else. */
function judgeRest(tool: Tool, query: URLSearchParams): Verdict {
  const { input, repeated } = restInput(query, ACCEPTS[tool]);
  if (repeated.length > 0) return { violations: repeated };
  return judge(tool, input, []);
}

/** The account an MCP call names, judged after its arguments: undefined when it is the caller's. */
function accountVerdict(args: Record<string, unknown>): string | undefined {
  if (!('account_id' in args)) return undefined;
  const id = args.account_id as number;
  return id === w.other
    ? 'You are not authorized to access this account'
    : id !== w.account
      ? 'Resource could not be found'
      : undefined;
}

/** Unknown arguments and account_id's type, in MCP (integers may come as decimal text). */
function mcpArgs(
  accepts: readonly string[],
  sent: Record<string, unknown>,
): { args: Record<string, unknown>; violations: string[] } {
  const args = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, readInteger(k, v)]));
  const violations: string[] = [];
  // A `__proto__` key is an argument like any other (unknown), never a prototype.
  const unknown = Object.keys(args).filter((k) => k !== 'account_id' && !accepts.includes(k));
  if (unknown.length > 0) violations.push(`unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  if ('account_id' in args) {
    const id = args.account_id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) violations.push('account_id must be a positive integer');
  }
  return { args, violations };
}

/** MCP: every argument problem at once (unknown ones and a malformed `from` included), then the account, then the 90-day rule. */
function judgeMcp(tool: Tool, sent: Record<string, unknown>): Verdict {
  const { args, violations } = mcpArgs(ACCEPTS[tool], sent);
  // MCP is strict about `from` (contract §10); REST ignores a malformed one (§3).
  const from = args.from;
  if (tool === 'search_messages' && from !== undefined && !(typeof from === 'string' && /^(contact|agent):\d+$/.test(from)))
    violations.push('from must be "contact:<id>" or "agent:<id>", e.g. "contact:42"');
  return judge(tool, args, violations, accountVerdict(args));
}

/** A tool error or 422 body says exactly the problems the oracle found, in any order. */
function expectProblems(message: string, violations: string[], context: string): void {
  expect(new Set(message.split('; ')), `${message} for ${context}`).toEqual(new Set(violations));
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

const qArb = fc.oneof(
  fc
    .constantFrom(...NAMES)
    .chain((n) => fc.tuple(fc.nat(n.length - 1), fc.integer({ min: 1, max: 8 })).map(([i, len]) => n.slice(i, i + len))),
  fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 6 }).map((xs) => xs.join('')),
  fc.constantFrom(...SQL_AND_DSL),
);
const textArb = fc.oneof(
  { weight: 4, arbitrary: qArb },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'x'.repeat(10_000),
      '😀'.repeat(10_000),
      'e\u0301'.repeat(5_000),
      ` ${'a'.repeat(500)} `,
      'a'.repeat(501),
      'a\u0000b',
      '\u0000',
      '\ud83d',
      'x\udc00y',
      '   ',
      '\u200B',
      '\u00a0\u2028',
    ),
  },
);
const intTextArb = fc.oneof(
  fc.integer({ min: -5, max: 520 }).map(String),
  fc.constantFrom(
    '',
    '0',
    '-0',
    '+2',
    ' 3 ',
    '1.5',
    '2.0',
    '1e2',
    '0x10',
    '007',
    '١',
    '1,2',
    '[1]',
    '{"$gt":0}',
    'NaN',
    'Infinity',
    '-1',
    '9007199254740993',
    '99999999999999999999',
  ),
);
const timeTextArb = fc.oneof(
  intTextArb,
  fc
    .constantFrom(NOW - 91 * DAY, NOW - 89 * DAY, NOW - 5 * DAY, NOW - 3 * DAY, NOW - DAY, NOW + DAY, MAX_UNIX, MAX_UNIX + 1)
    .map(String),
);
const fromTextArb = fc.oneof(
  fc.constantFrom(
    'contact:',
    'contact:abc',
    'contact:-1',
    ' contact:1',
    'CONTACT:1',
    'contact:99999999999999999999999',
    'agent:1',
    'contact:1 OR 1=1',
  ),
  fc.nat(NAMES.length - 1).map((i) => `contact:${w.contacts[i]!.id}`),
  textArb,
);

const REST_KEYS = ['q', 'page', 'since', 'until', 'inbox_id', 'from'] as const;
const UNKNOWN_KEYS = ['bogus', 'Q', 'q ', 'q[]', 'page[0]', '', 'api_access_token', 'account_id', 'per_page', 'sort'];

function restValueArb(key: string): fc.Arbitrary<string> {
  switch (key) {
    case 'q':
      return textArb;
    case 'page':
      return fc.oneof({ weight: 3, arbitrary: intTextArb }, { weight: 1, arbitrary: textArb });
    case 'since':
    case 'until':
      return fc.oneof({ weight: 3, arbitrary: timeTextArb }, { weight: 1, arbitrary: textArb });
    case 'inbox_id':
      return fc.oneof(fc.constantFrom(...[...w.inboxes, w.otherInbox].map(String)), intTextArb, textArb);
    case 'from':
      return fromTextArb;
    default:
      return textArb;
  }
}

/** Percent-encodes every UTF-8 byte but unreserved ASCII (a lone surrogate becomes U+FFFD, as a browser does). */
function encodeLoose(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** A query string of (key, value) pairs; each pair percent-encoded or left raw (`&`, `=`, `#`, `+`, `%` then mean what they mean in a URL). */
const queryArb = fc
  .tuple(
    fc.option(fc.tuple(fc.constant('q'), fc.oneof({ weight: 2, arbitrary: qArb }, textArb), fc.boolean()), { freq: 8 }),
    fc.array(
      fc
        .oneof(
          { weight: 3, arbitrary: fc.constantFrom(...REST_KEYS) },
          { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_KEYS) },
        )
        .chain((k) => fc.tuple(fc.constant(k), restValueArb(k), fc.boolean())),
      { maxLength: 5 },
    ),
  )
  .map(([first, rest]) =>
    [...(first ? [first] : []), ...rest]
      .map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encodeLoose(k)}=${encodeLoose(v)}`))
      .join('&'),
  );

/** JSON values a model might put anywhere: right type or not. */
const jsonValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: textArb },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.integer({ min: -5, max: 520 }),
      fc.integer(),
      fc.double(),
      fc.constantFrom(0, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, 1e300, -1e300, Number.NaN, Infinity, 501, MAX_UNIX + 1),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }) },
);

function mcpValueArb(key: string): fc.Arbitrary<unknown> {
  const good = new Map<string, fc.Arbitrary<unknown>>(
    Object.entries({
      q: qArb,
      page: fc.integer({ min: 1, max: 3 }),
      since: fc.constantFrom(NOW - 91 * DAY, NOW - 89 * DAY, NOW - 5 * DAY, NOW - DAY, 0),
      until: fc.constantFrom(NOW - 3 * DAY, NOW, MAX_UNIX),
      inbox_id: fc.constantFrom(...w.inboxes, w.otherInbox),
      from: fromTextArb,
      account_id: fc.constantFrom(w.account, w.other, 999_999_999),
    }),
  );
  const typed = good.get(key);
  // Integers may also come as decimal text (issue 14).
  const right =
    typed && INTEGER_KEYS.has(key)
      ? fc.oneof({ weight: 3, arbitrary: typed }, { weight: 1, arbitrary: typed.map(String) })
      : typed;
  return right ? fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: jsonValueArb }) : jsonValueArb;
}

const MCP_KEYS = ['q', 'page', 'since', 'until', 'inbox_id', 'from', 'account_id'] as const;
const argsArb = fc
  .tuple(
    fc.option(mcpValueArb('q'), { freq: 8, nil: undefined }),
    fc
      .uniqueArray(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...MCP_KEYS) },
          { weight: 1, arbitrary: fc.constantFrom('bogus', 'Q', 'q ', 'constructor', '__proto__', 'sql', 'limit', 'per_page') },
        ),
        { maxLength: 3 },
      )
      .chain((keys) => fc.tuple(...keys.map((k) => fc.tuple(fc.constant(k), mcpValueArb(k))))),
  )
  .map(([q, pairs]) =>
    Object.fromEntries([...(q === undefined ? [] : [['q', q] as const]), ...pairs.filter(([k]) => k !== 'q' || q === undefined)]),
  );

// ---------------------------------------------------------------------------------------------
// Reads (issue 14): get_conversation, get_contact, get_article.
// ---------------------------------------------------------------------------------------------

export const FUZZ_READ_RUNS = 300;
const READ_TOOLS = ['get_conversation', 'get_contact', 'get_article'] as const;
type ReadTool = (typeof READ_TOOLS)[number];
const READ_ACCEPTS: Record<ReadTool, readonly string[]> = {
  get_conversation: ['display_id', 'id', 'before', 'after', 'include_activity'],
  get_contact: ['id', 'page'],
  get_article: ['id'],
};
const NOT_FOUND: Record<ReadTool, string> = {
  get_conversation: 'Conversation not found',
  get_contact: 'Contact not found',
  get_article: 'Article not found',
};

/** What a read shows: the record's id and its rows (message ids, conversation ids), and the transcript's has_more. */
interface ReadExpected {
  id: number;
  rows: number[];
  hasMore?: { before: boolean; after: boolean };
}
type ReadVerdict = { ok: ReadExpected } | { violations: string[] };
type ReadBody = {
  meta?: { conversation: { id: number }; has_more: { before: boolean; after: boolean } };
  payload: Array<{ id: number }> | { id: number; contact?: { id: number }; conversations?: Array<{ id: number }> };
};

/** The parameters of a read, judged like the schema: every problem together. */
function judgeReadParams(
  tool: ReadTool,
  args: Record<string, unknown>,
  violations: string[],
): Record<string, number | boolean | undefined> {
  const has = (k: string) => k in args;
  const positive = (k: string) =>
    checkInteger(args[k], 1, Number.MAX_SAFE_INTEGER, `${k} must be a positive integer`, violations);
  const out: Record<string, number | boolean | undefined> = {};
  for (const key of READ_ACCEPTS[tool]) {
    if (key === 'page') out.page = checkInteger(args.page, 1, 500, PAGE_MESSAGE, violations);
    else if (key === 'include_activity') {
      if (has(key) && typeof args[key] !== 'boolean') violations.push('include_activity must be true or false');
    } else if (key === 'id' && tool !== 'get_conversation' && !has('id')) violations.push('id is required');
    else out[key] = positive(key);
  }
  if (tool === 'get_conversation') {
    if (!has('display_id') && !has('id')) violations.push('display_id or id is required');
    if (has('display_id') && has('id')) violations.push('give display_id or id, not both');
    if (has('before') && has('after')) violations.push('give before or after, not both');
  }
  return out;
}

/** The record a read finds (after its parameters and the account were accepted). */
function judgeRecord(tool: ReadTool, p: Record<string, number | boolean | undefined>): ReadVerdict {
  if (tool === 'get_article') {
    const a = w.articles.find((x) => x.id === p.id);
    return a ? { ok: { id: a.id, rows: [] } } : { violations: [NOT_FOUND[tool]] };
  }
  if (tool === 'get_contact') {
    const c = w.contacts.find((x) => x.id === p.id);
    if (!c) return { violations: [NOT_FOUND[tool]] };
    const rows = expectContactConversations(
      w.conversations.filter((v) => v.contact === c.id),
      p.page as number | undefined,
    );
    return { ok: { id: c.id, rows } };
  }
  const v = w.conversations.find((x) => (p.id !== undefined ? x.id === p.id : x.display === p.display_id));
  if (!v) return { violations: [NOT_FOUND[tool]] };
  const transcript = expectTranscript(
    w.messages.filter((m) => m.conversation === v.id),
    { before: p.before as number | undefined, after: p.after as number | undefined },
  );
  if ('missing' in transcript) return { violations: [`${transcript.missing} must be the id of a message of this conversation`] };
  return { ok: { id: v.id, ...transcript } };
}

/** MCP: arguments (unknown ones, account_id, the tool's own) → account → record. */
function judgeReadMcp(tool: ReadTool, sent: Record<string, unknown>): ReadVerdict {
  const { args, violations } = mcpArgs(READ_ACCEPTS[tool], sent);
  const params = judgeReadParams(tool, args, violations);
  if (violations.length > 0) return { violations };
  const account = accountVerdict(args);
  return account ? { violations: [account] } : judgeRecord(tool, params);
}

/** REST: the path names the record (a canonical positive integer, else "not found" after the parameters). */
function judgeReadRest(tool: ReadTool, segment: string, query: URLSearchParams): ReadVerdict {
  const idKey = tool === 'get_conversation' ? 'display_id' : 'id';
  const { input, repeated } = restInput(
    query,
    READ_ACCEPTS[tool].filter((k) => k !== 'id' && k !== 'display_id'),
  );
  if (repeated.length > 0) return { violations: repeated };
  const id = /^[1-9]\d{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment)) ? Number(segment) : undefined;
  const violations: string[] = [];
  const params = judgeReadParams(tool, { ...input, [idKey]: id ?? 1 }, violations);
  if (violations.length > 0) return { violations };
  return id === undefined ? { violations: [NOT_FOUND[tool]] } : judgeRecord(tool, params);
}

function expectRead(tool: ReadTool, e: ReadExpected, body: ReadBody): void {
  if (tool === 'get_conversation') {
    expect(body.meta?.conversation.id).toBe(e.id);
    expect((body.payload as Array<{ id: number }>).map((m) => m.id)).toEqual(e.rows);
    expect(body.meta?.has_more).toEqual(e.hasMore);
  } else if (tool === 'get_contact') {
    const p = body.payload as { contact: { id: number }; conversations: Array<{ id: number }> };
    expect(p.contact.id).toBe(e.id);
    expect(p.conversations.map((v) => v.id)).toEqual(e.rows);
  } else {
    expect((body.payload as { id: number }).id).toBe(e.id);
  }
}

/** Ids worth trying: every record of this account, another account's, and ones that exist nowhere. */
const someIdArb = () =>
  fc
    .constant(null)
    .chain(() =>
      fc.constantFrom(
        ...w.conversations.flatMap((v) => [v.id, v.display, v.contact]),
        ...w.messages.map((m) => m.id),
        ...w.articles.map((a) => a.id),
        ...w.foreign,
        999_999_999,
      ),
    );

function readValueArb(key: string): fc.Arbitrary<unknown> {
  const typed = ['display_id', 'id', 'before', 'after'].includes(key)
    ? someIdArb()
    : key === 'page'
      ? fc.integer({ min: 1, max: 2 })
      : key === 'include_activity'
        ? fc.boolean()
        : key === 'account_id'
          ? fc.constantFrom(w.account, w.account, w.other, 999_999_999)
          : undefined;
  if (!typed) return jsonValueArb;
  const right = INTEGER_KEYS.has(key)
    ? fc.oneof({ weight: 3, arbitrary: typed }, { weight: 1, arbitrary: typed.map(String) })
    : typed;
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: jsonValueArb });
}

/** Arguments of a read: mostly the tool's own (its record named most of the time), sometimes anything. */
const readArgsArb = (tool: ReadTool) =>
  fc
    .uniqueArray(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...READ_ACCEPTS[tool], 'account_id') },
        { weight: 1, arbitrary: fc.constantFrom('q', 'bogus', 'display_id', 'conversation_id', '__proto__', 'limit') },
      ),
      { maxLength: 2 },
    )
    .chain((keys) =>
      fc.tuple(
        fc.constantFrom<'id' | 'display_id'>(
          ...(tool === 'get_conversation' ? (['id', 'display_id'] as const) : (['id'] as const)),
        ),
        ...keys.map((k) => fc.tuple(fc.constant(k), readValueArb(k))),
      ),
    )
    .chain(([first, ...pairs]) =>
      fc
        .tuple(fc.option(readValueArb(first), { freq: 8, nil: undefined }), fc.constant(pairs))
        .map(([value, rest]) =>
          Object.fromEntries([
            ...(value === undefined ? [] : [[first, value] as const]),
            ...rest.filter(([k]) => k !== first || value === undefined),
          ]),
        ),
    );
const readCallArb = () => fc.constantFrom(...READ_TOOLS).chain((tool) => fc.tuple(fc.constant(tool), readArgsArb(tool)));

/** A path segment: a record id, in canonical form or not, or no id at all. */
const segmentArb = () =>
  fc.oneof(
    { weight: 6, arbitrary: someIdArb().map(String) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('abc', '0', '-1', '01', '1.5', '1e3', '99999999999999999999', '%20', '%2F1', '1%00'),
    },
  );

const READ_REST_KEYS = ['before', 'after', 'include_activity', 'page', 'id', 'display_id', 'bogus'] as const;
const readQueryArb = fc
  .array(
    fc
      .constantFrom(...READ_REST_KEYS)
      .chain((k) =>
        fc.tuple(
          fc.constant(k),
          k === 'include_activity'
            ? fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'yes', '')
            : fc.oneof(
                { weight: 3, arbitrary: fc.constant(null).chain(() => someIdArb().map(String)) },
                { weight: 1, arbitrary: intTextArb },
              ),
        ),
      ),
    { maxLength: 3 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));

// ---------------------------------------------------------------------------------------------
// Hostile article bodies (issue 49): unclosed tags, brackets and comments, deep nesting, 1 MB.
// ---------------------------------------------------------------------------------------------

export const FUZZ_ARTICLE_RUNS = 30;
const NEEDLE = 'quokka';
const MARKUP = [
  '<',
  '<b',
  '</',
  '<x ',
  '<!--',
  '-->',
  '<script>',
  '</script>',
  '<style',
  '>',
  '<div>',
  '</div>',
  '<br ',
  '[',
  ']',
  '](',
  '(',
  ')',
  '![',
  '&amp',
  '&#',
  '#',
  '**',
  '`',
  '~~',
  '\n',
  ' ',
  'x',
];
/** A unit of markup repeated to 1 kB, 64 kB or 1 MB, with the needle as a word somewhere in it. */
const hostileBodyArb = fc
  .record({
    unit: fc.array(fc.constantFrom(...MARKUP), { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join('')),
    size: fc.constantFrom(1_000, 64_000, 1 << 20),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ unit, size, at }) => {
    const body = unit.repeat(Math.ceil(size / unit.length));
    const i = Math.floor(at * body.length);
    return `${body.slice(0, i)} ${NEEDLE} ${body.slice(i)}`;
  });

// ---------------------------------------------------------------------------------------------
// Assertions shared by both properties.
// ---------------------------------------------------------------------------------------------

/** What no answer may ever contain: SQL, a stack trace, a driver message, the caller's token. */
function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/\b(SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*\b(FROM|INTO|SET|WHERE)\b/i);
  expect(text).not.toMatch(/\bILIKE\b|\bpg_|\bSQLSTATE\b|syntax error|relation "|node_modules|\n\s+at |\bat .+:\d+:\d+\)/);
  expect(text).not.toContain(w.token);
}

/** Checks a successful payload against the oracle: the right rows, in order, and nothing else. */
function expectPayload(tool: Tool, e: Effective, payload: Record<string, Array<{ id: number }>>): void {
  expect(Object.keys(payload).sort()).toEqual([...KEYS_OF[tool]].sort());
  const expected = expectedRows(tool, e);
  for (const key of KEYS_OF[tool]) {
    const rows = expected[key]!;
    const got = payload[key]!.map((r) => r.id);
    expect(got, `${key} of ${JSON.stringify(e)}`).toEqual(rows.slice((e.page - 1) * 15, e.page * 15));
  }
}

export const FUZZ_LIST_RUNS = 150;
/** MCP's list `{payload: {conversations, counts}}` as the REST body `{data: {meta, payload}}`. */
const asListBody = (structured: unknown) => {
  const { payload } = structured as { payload: { conversations: unknown; counts: unknown } };
  return { data: { meta: payload.counts, payload: payload.conversations } };
};
const LIST_KEYS = [
  'status',
  'assignee_type',
  'inbox_id',
  'team_id',
  'labels',
  'labels[]',
  'priority',
  'conversation_type',
  'sort_by',
  'since',
  'until',
  'page',
] as const;
const LIST_GOOD: Record<string, readonly string[]> = {
  status: ['open', 'resolved', 'pending', 'snoozed', 'all'],
  assignee_type: ['all', 'me', 'unassigned', 'assigned'],
  priority: ['urgent', 'high', 'medium', 'low', 'none'],
  conversation_type: ['unattended'],
  sort_by: ['last_activity_at_desc', 'created_at_desc', 'created_at_asc', 'priority_desc', 'waiting_since_asc'],
};
function listValueArb(key: string): fc.Arbitrary<string> {
  const good = LIST_GOOD[key];
  if (good) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: textArb });
  if (key === 'inbox_id') return restValueArb('inbox_id');
  if (key === 'since' || key === 'until' || key === 'page') return restValueArb(key);
  return fc.oneof(textArb, fc.constantFrom('billing', 'a,b', ',', 'x'.repeat(300)));
}
const listQueryArb = fc
  .array(
    fc.constantFrom(...LIST_KEYS).chain((k) => fc.tuple(fc.constant(k), listValueArb(k.replace('[]', '')))),
    { maxLength: 4 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeLoose(v)}`).join('&'));
const listArgsArb = fc.dictionary(
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...LIST_KEYS.filter((k) => k !== 'labels[]')) },
    { weight: 1, arbitrary: fc.constantFrom('q', 'bogus') },
  ),
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...Object.values(LIST_GOOD).flat(), 1, 2, w.inboxes[0] ?? 1) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('billing', '', 'x'), { maxLength: 3 }) },
    { weight: 1, arbitrary: jsonValueArb },
  ),
  { maxKeys: 4 },
);

/** Outcomes seen, so a property that only ever sees errors or empty lists fails. */
const stats = { rest: new Map<number, number>(), restRows: 0, mcp: { ok: 0, error: 0, rows: 0 } };
const someRows = (payload: Record<string, unknown[]>) => Object.values(payload).some((rows) => rows.length > 0);
const count = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);

describe('bad input through REST and MCP (issue 6)', () => {
  it(`REST: raw query strings answer the oracle's rows or its 422 (${FUZZ_REST_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOLS), queryArb, async (tool, query) => {
        const url = `${server.url}/api/v1/accounts/${w.account}/search${REST_SUFFIX[tool]}?${query}`;
        const target = new URL(url);
        const res = await fetch(target, {
          headers: { api_access_token: w.token },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        count(stats.rest, res.status);
        const targetBytes = Buffer.byteLength(target.pathname + target.search);
        if (targetBytes > MAX_HEADER_BYTES) {
          // Refused by Node's HTTP parser before searchdesk sees it.
          expect(res.status).toBe(431);
          return;
        }
        expectNoLeak(text);
        const verdict = judgeRest(tool, target.searchParams);
        if ('violations' in verdict) {
          expect(res.status, text).toBe(422);
          const body = JSON.parse(text) as { error: string };
          expect(Object.keys(body)).toEqual(['error']);
          expectProblems(body.error, verdict.violations, target.search);
          return;
        }
        expect(res.status, `${text} for ${target.search}`).toBe(200);
        const body = JSON.parse(text) as { payload: Record<string, Array<{ id: number }>> };
        expect(Object.keys(body)).toEqual(['payload']);
        expectPayload(tool, verdict.ok, body.payload);
        if (someRows(body.payload)) stats.restRows += 1;
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_REST_RUNS },
    );
    // Not vacuous: both outcomes occur often.
    expect(stats.rest.get(200) ?? 0).toBeGreaterThan(FUZZ_REST_RUNS / 5);
    expect(stats.rest.get(422) ?? 0).toBeGreaterThan(FUZZ_REST_RUNS / 5);
    expect(stats.restRows).toBeGreaterThan(FUZZ_REST_RUNS / 10);
    expect([...stats.rest.keys()].every((s) => [200, 422, 431].includes(s))).toBe(true);
  }, 120_000);

  it(`MCP: any tool arguments answer the oracle's rows or its tool error (${FUZZ_MCP_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOOLS), argsArb, async (tool, args) => {
        // What goes over the wire (NaN → null, -0 → 0): the oracle judges that.
        const sent = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
        const r = await client.callTool({ name: tool, arguments: sent }, { timeout: REQUEST_TIMEOUT_MS });
        const text = (r.content[0] as { text: string }).text;
        const verdict = judgeMcp(tool, sent);
        if ('violations' in verdict) {
          stats.mcp.error += 1;
          expect(r, JSON.stringify(sent)).toEqual({ isError: true, content: [{ type: 'text', text: expect.any(String) }] });
          expectProblems(text, verdict.violations, JSON.stringify(sent));
          return;
        }
        stats.mcp.ok += 1;
        expect(r.isError, `${text} for ${JSON.stringify(sent)}`).toBeFalsy();
        expectNoLeak(JSON.stringify(r._meta));
        const payload = (r.structuredContent as { payload: Record<string, Array<{ id: number }>> }).payload;
        expect(JSON.parse(text)).toEqual(r.structuredContent);
        expectPayload(tool, verdict.ok, payload);
        if (someRows(payload)) stats.mcp.rows += 1;
        const rows = expectedRows(tool, verdict.ok);
        expect(r._meta).toMatchObject({
          page: verdict.ok.page,
          per_page: 15,
          engine: 'postgres',
          has_more: Object.fromEntries(KEYS_OF[tool].map((k) => [k, rows[k]!.length > verdict.ok.page * 15])),
        });
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_MCP_RUNS },
    );
    expect(stats.mcp.ok).toBeGreaterThan(FUZZ_MCP_RUNS / 5);
    expect(stats.mcp.error).toBeGreaterThan(FUZZ_MCP_RUNS / 5);
    expect(stats.mcp.rows).toBeGreaterThan(FUZZ_MCP_RUNS / 10);
  }, 120_000);

  // Found by this fuzzing: Postgres's [:alnum:] leaves out combining marks, so a word used to
  // start right after one; the contract's words (and the search-engine index) keep marks inside words.
  it('does not start a word after a combining mark ("cole" does not find "e\u0301cole")', async () => {
    const fx = new Fixture(t.admin);
    const account = await fx.account({ advancedSearch: true });
    const user = await fx.user();
    await fx.member(account, user, 'administrator');
    const token = await fx.token(user);
    await fx.message(await fx.conversation(account, await fx.inbox(account)), { content: 'e\u0301cole primaire' });
    const res = await fetch(`${server.url}/api/v1/accounts/${account}/search/messages?q=cole`, {
      headers: { api_access_token: token },
    });
    expect(await res.json()).toEqual({ payload: { messages: [] } });
  });

  it(`MCP: the read tools answer the oracle's record or its tool error (${FUZZ_READ_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    const seen = { ok: 0, error: 0, notFound: 0 };
    await fc.assert(
      fc.asyncProperty(readCallArb(), async ([tool, args]) => {
        const sent = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
        const r = await client.callTool({ name: tool, arguments: sent }, { timeout: REQUEST_TIMEOUT_MS });
        const text = (r.content[0] as { text: string }).text;
        expectNoLeak(text);
        const verdict = judgeReadMcp(tool, sent);
        if ('violations' in verdict) {
          seen.error += 1;
          if (verdict.violations[0]?.endsWith('not found')) seen.notFound += 1;
          expect(r, JSON.stringify(sent)).toEqual({ isError: true, content: [{ type: 'text', text: expect.any(String) }] });
          expectProblems(text, verdict.violations, JSON.stringify(sent));
          return;
        }
        seen.ok += 1;
        expect(r.isError, `${text} for ${JSON.stringify(sent)}`).toBeFalsy();
        expect(JSON.parse(text)).toEqual(r.structuredContent);
        expectRead(tool, verdict.ok, r.structuredContent as ReadBody);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_READ_RUNS },
    );
    expect(seen.ok).toBeGreaterThan(FUZZ_READ_RUNS / 10);
    expect(seen.error).toBeGreaterThan(FUZZ_READ_RUNS / 5);
    expect(seen.notFound).toBeGreaterThan(FUZZ_READ_RUNS / 20);
  }, 120_000);

  it(`REST: the read routes answer the oracle's record, its 422 or its 404 (${FUZZ_READ_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...READ_TOOLS), segmentArb(), readQueryArb, async (tool, segment, query) => {
        const base = `${server.url}/api/v1/accounts/${w.account}`;
        const path =
          tool === 'get_conversation'
            ? `/conversations/${segment}/messages`
            : tool === 'get_contact'
              ? `/contacts/${segment}`
              : `/articles/${segment}`;
        const target = new URL(`${base}${path}?${query}`);
        const res = await fetch(target, {
          headers: { api_access_token: w.token },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        count(statuses, res.status);
        expectNoLeak(text);
        const verdict = judgeReadRest(tool, segment, target.searchParams);
        if ('violations' in verdict) {
          const notFound = verdict.violations[0]?.endsWith('not found') === true;
          expect(res.status, `${text} for ${target.pathname}${target.search}`).toBe(notFound ? 404 : 422);
          expectProblems((JSON.parse(text) as { error: string }).error, verdict.violations, target.pathname + target.search);
          return;
        }
        expect(res.status, `${text} for ${target.pathname}${target.search}`).toBe(200);
        expectRead(tool, verdict.ok, JSON.parse(text) as ReadBody);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_READ_RUNS },
    );
    for (const status of [200, 404, 422])
      expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(FUZZ_READ_RUNS / 20);
    expect([...statuses.keys()].every((st) => [200, 404, 422].includes(st))).toBe(true);
  }, 120_000);

  it(`hostile article bodies are searched and read alike on both surfaces (${FUZZ_ARTICLE_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    const fx = new Fixture(t.admin);
    const account = await fx.account({ advancedSearch: true });
    const user = await fx.user();
    await fx.member(account, user, 'administrator');
    const token = await fx.token(user);
    const article = await fx.article(account, await fx.portal(account), { title: 'Hostile' });
    const hostile = await connectHttpMcp(server.url, { api_access_token: token });
    const headers = { api_access_token: token };
    try {
      await fc.assert(
        fc.asyncProperty(hostileBodyArb, async (body) => {
          await fx.sql('UPDATE articles SET content = $1 WHERE id = $2', [body, article]);
          const base = `${server.url}/api/v1/accounts/${account}`;
          const signal = () => AbortSignal.timeout(REQUEST_TIMEOUT_MS);
          const search = await fetch(`${base}/search/articles?q=${NEEDLE}`, { headers, signal: signal() });
          expect(search.status).toBe(200);
          const found = ((await search.json()) as { payload: { articles: Array<{ id: number; snippet: string }> } }).payload;
          expect(found.articles.map((a) => a.id)).toEqual([article]);
          expect(found.articles[0]!.snippet.length).toBeLessThanOrEqual(300);
          const mcpSearch = await hostile.callTool(
            { name: 'search_articles', arguments: { q: NEEDLE } },
            { timeout: REQUEST_TIMEOUT_MS },
          );
          expect((asRestBody(mcpSearch.structuredContent) as { payload: unknown }).payload).toEqual(found);
          const read = await fetch(`${base}/articles/${article}`, { headers, signal: signal() });
          expect(read.status).toBe(200);
          const content = ((await read.json()) as { payload: { content: string } }).payload.content;
          const mcpRead = await hostile.callTool(
            { name: 'get_article', arguments: { id: article } },
            { timeout: REQUEST_TIMEOUT_MS },
          );
          expect(mcpRead.isError).toBeFalsy();
          // The MCP context budget may shorten the content, with a trailing `…`.
          const mcpContent = (mcpRead.structuredContent as { payload: { content: string } }).payload.content;
          expect(content.startsWith(mcpContent.replace(/…$/, ''))).toBe(true);
          expect(content.length).toBeLessThanOrEqual(body.length);
        }),
        { seed: FUZZ_SEED, numRuns: FUZZ_ARTICLE_RUNS },
      );
    } finally {
      await hostile.close();
    }
  }, 120_000);

  it(`REST and MCP: list_conversations and the directory answer own rows or a 422 naming the parameter (${FUZZ_LIST_RUNS} runs each, seed ${FUZZ_SEED})`, async () => {
    const own = new Set(w.conversations.map((c) => c.id));
    const seen = { ok: 0, refused: 0, rows: 0 };
    /** A 200 lists only this account's conversations; a refusal names a parameter that was sent. */
    const judgeList = (ok: boolean, body: unknown, sent: string[]) => {
      if (ok) {
        const { data } = body as { data: { meta: Record<string, number>; payload: Array<{ id: number; account_id: number }> } };
        for (const c of data.payload) expect(own.has(c.id) && c.account_id === w.account).toBe(true);
        expect(data.meta.all_count).toBeLessThanOrEqual(w.conversations.length);
        seen.ok += 1;
        if (data.payload.length > 0) seen.rows += 1;
      } else {
        const message = (body as { error?: string }).error ?? String(body);
        expect(
          sent.some((k) => message.includes(k.replace('[]', '')) || message.startsWith('unknown argument')),
          message,
        ).toBe(true);
        seen.refused += 1;
      }
    };
    await fc.assert(
      fc.asyncProperty(listQueryArb, async (query) => {
        const target = new URL(`${server.url}/api/v1/accounts/${w.account}/conversations?${query}`);
        const res = await fetch(target, {
          headers: { api_access_token: w.token },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const text = await res.text();
        expectNoLeak(text);
        expect([200, 422], text).toContain(res.status);
        judgeList(res.status === 200, JSON.parse(text), [...target.searchParams.keys()]);
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_LIST_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(listArgsArb, async (args) => {
        const r = await client.callTool({ name: 'list_conversations', arguments: args });
        const text = (r.content[0] as { text: string }).text;
        expectNoLeak(text);
        judgeList(!r.isError, r.isError ? { error: text } : asListBody(r.structuredContent), Object.keys(args));
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_LIST_RUNS },
    );
    expect(seen.ok).toBeGreaterThan(FUZZ_LIST_RUNS / 5);
    expect(seen.refused).toBeGreaterThan(FUZZ_LIST_RUNS / 5);
    expect(seen.rows).toBeGreaterThan(FUZZ_LIST_RUNS / 10);
    for (const route of ['inboxes', 'teams', 'agents', 'labels']) {
      const res = await fetch(`${server.url}/api/v1/accounts/${w.account}/${route}?page=-1&bogus=%00`, {
        headers: { api_access_token: w.token },
      });
      expect(res.status).toBe(200);
    }
    const other = await fetch(`${server.url}/api/v1/accounts/${w.other}/inboxes`, { headers: { api_access_token: w.token } });
    expect(other.status).toBe(401);
  }, 120_000);

  it('the server survived every request: still up, and no internal error logged', async () => {
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.stderr()).not.toMatch(/"event":"(http_internal_error|tool_internal_error|db_error)"/);
    expect(server.stderr()).not.toContain(w.token);
  });
});

/*
 * Issue 49: token guessing and JSON-RPC batches against the rate limit. Each run is a random
 * sequence of requests to a server of its own (a fresh limiter): REST searches and /mcp pings,
 * alone or in batches under every protocol version, from users, guessers and bots, with the
 * token in api_access_token, in Authorization: Bearer, both, or an empty header. Every answer is
 * the one a model of README's rules predicts (200, 400, 401, or 429 from the bucket it names), and
 * no 429 costs a token lookup.
 */
const LIMIT_PER_TOKEN = 4;
const LIMIT_ANONYMOUS = 3;
const USERS = 2;
const VERSIONS = [undefined, '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

type Who = { kind: 'user'; i: number } | { kind: 'guess'; i: number } | { kind: 'bot' };
/** Where the token goes: api_access_token, Bearer, Bearer beside an empty api_access_token, or beside another's Bearer. */
type Sent = 'header' | 'bearer' | 'emptyThenBearer' | 'besideUserBearer';
type Credential = { kind: 'none' } | { kind: 'empty' } | { kind: 'token'; who: Who; sent: Sent };
interface LimitRequest {
  credential: Credential;
  /** REST search, or /mcp: 0 = one ping, n = an array of n pings. */
  mcp?: { batch: number; version: (typeof VERSIONS)[number] };
}

const whoArb: fc.Arbitrary<Who> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('user' as const), i: fc.nat(USERS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('guess' as const), i: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bot' as const }) },
);
const credentialArb: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('token' as const),
      who: whoArb,
      sent: fc.constantFrom<Sent>('header', 'bearer', 'emptyThenBearer', 'besideUserBearer'),
    }),
  },
);
const limitRequestArb: fc.Arbitrary<LimitRequest> = fc.record(
  {
    credential: credentialArb,
    mcp: fc.record({ batch: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })), version: fc.constantFrom(...VERSIONS) }),
  },
  { requiredKeys: ['credential'] },
);

/** README's rules, for one client address and a fresh limiter. */
interface Expected {
  status: number;
  key?: 'ip' | 'token';
  early?: boolean;
}

class LimitModel {
  private ip = 0;
  private readonly used = new Map<string, number>();
  private readonly known = new Set<string>();

  /**
   * The status the request must get; on a 429 the bucket that refused it, and whether that was
   * before its token was looked up (all but a batch's further messages).
   */
  answer(token: string | undefined, namesUser: boolean, mcp: LimitRequest['mcp']): Expected {
    const early = { status: 429, early: true } as const;
    if (token === undefined) return ++this.ip > LIMIT_ANONYMOUS ? { ...early, key: 'ip' } : { status: 401 };
    const known = this.known.has(token);
    if (!known && ++this.ip > LIMIT_ANONYMOUS) return { ...early, key: 'ip' };
    if (this.spend(token, 1)) return { ...early, key: 'token' };
    if (!namesUser) return { status: 401 };
    if (!known) {
      this.ip -= 1;
      this.known.add(token);
    }
    if (!mcp || mcp.batch === 0) return { status: 200 };
    if ((mcp.version ?? '2025-03-26') >= '2025-06-18') return { status: 400 };
    return this.spend(token, mcp.batch - 1) ? { status: 429, key: 'token' } : { status: 200 };
  }

  /** Counts points against a token; true when that takes it over its limit. */
  private spend(token: string, points: number): boolean {
    const used = (this.used.get(token) ?? 0) + points;
    this.used.set(token, used);
    return used > LIMIT_PER_TOKEN;
  }
}

describe('the rate limit under token guessing and batches (issue 49)', () => {
  let app: App;
  let served: App;
  let lookups: (prefix?: string) => number;
  const users: string[] = [];
  let bot = '';

  beforeAll(async () => {
    const fx = new Fixture(t.admin);
    for (let i = 0; i < USERS; i++) {
      const user = await fx.user({ email: `limit${i}@example.test` });
      await fx.member(w.account, user, 'administrator');
      users.push(await fx.token(user));
    }
    bot = await fx.token(w.agentUser, 'AgentBot');
    const config = loadConfig(
      cliEnv({
        DATABASE_URL: t.url,
        HOST: '127.0.0.1',
        PORT: '0',
        SEARCHDESK_RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_TOKEN),
        SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(LIMIT_ANONYMOUS),
      }),
    );
    app = await createApp(config, silentLogger);
    const counted = countingDb(app.deps.db);
    lookups = counted.statements;
    served = { ...app, deps: { ...app.deps, db: counted.db } };
  });
  afterAll(() => app?.close());

  /** The token a credential names (guesses are per run), and the headers that send it. */
  function credentialHeaders(
    c: Credential,
    run: number,
  ): { headers: Record<string, string>; token?: string; namesUser: boolean } {
    if (c.kind === 'none') return { headers: {}, namesUser: false };
    if (c.kind === 'empty') return { headers: { api_access_token: '' }, namesUser: false };
    const token = c.who.kind === 'user' ? users[c.who.i]! : c.who.kind === 'bot' ? bot : `tok_guess_${run}_${c.who.i}`;
    const namesUser = c.who.kind === 'user';
    if (c.sent === 'header') return { headers: { api_access_token: token }, token, namesUser };
    if (c.sent === 'bearer') return { headers: { authorization: `Bearer ${token}` }, token, namesUser };
    if (c.sent === 'emptyThenBearer')
      return { headers: { api_access_token: '', authorization: `Bearer ${token}` }, token, namesUser };
    return { headers: { api_access_token: token, authorization: `Bearer ${users[0]!}` }, token, namesUser };
  }

  function send(url: string, r: LimitRequest, headers: Record<string, string>) {
    if (!r.mcp) return rawRequest(`${url}/api/v1/accounts/${w.account}/search/contacts?q=plain`, { headers });
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const body = r.mcp.batch === 0 ? ping(1) : Array.from({ length: r.mcp.batch }, (_, i) => ping(i + 1));
    const version: Record<string, string> = r.mcp.version === undefined ? {} : { 'mcp-protocol-version': r.mcp.version };
    return rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...version, ...headers },
      body: JSON.stringify(body),
    });
  }

  const seen = new Map<string, number>();

  it(`every answer is the one README's rules predict, and no 429 costs a lookup (${FUZZ_LIMIT_RUNS} runs, seed ${FUZZ_SEED})`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(limitRequestArb, { minLength: 1, maxLength: 16 }), async (requests) => {
        run += 1;
        const model = new LimitModel();
        const refused = { ip: 0, token: 0 };
        const http = await startHttpServer(served, { logger: silentLogger });
        try {
          for (const r of requests) {
            const { headers, token, namesUser } = credentialHeaders(r.credential, run);
            const expected = model.answer(token, namesUser, r.mcp);
            const before = lookups('auth_');
            const res = await send(http.url, r, headers);
            const context = `${JSON.stringify(r)} → ${res.status} ${res.body.slice(0, 200)}`;
            expect(res.status, context).toBe(expected.status);
            seen.set(`${res.status}${expected.key ?? ''}`, (seen.get(`${res.status}${expected.key ?? ''}`) ?? 0) + 1);
            if (expected.key) {
              refused[expected.key] += 1;
              if (expected.early) expect(lookups('auth_'), `a refused request looked its token up: ${context}`).toBe(before);
              expect(res.body).toMatch(/Too many requests: retry after \d+ seconds?/);
            }
            if (res.status === 400) expect(JSON.parse(res.body)).toMatchObject({ id: null, error: { code: -32600 } });
            if (token) expect(res.body).not.toContain(token);
          }
          const metrics = await (await fetch(`${http.url}/metrics`)).text();
          for (const key of ['ip', 'token'] as const) {
            const counted = [
              ...metrics.matchAll(
                new RegExp(`^searchdesk_http_rate_limited_total\\{route="[^"]+",key="${key}"\\} (\\d+)$`, 'gm'),
              ),
            ];
            expect(
              counted.reduce((sum, m) => sum + Number(m[1]), 0),
              `429s from the ${key} bucket`,
            ).toBe(refused[key]);
          }
        } finally {
          await http.close();
        }
      }),
      { seed: FUZZ_SEED, numRuns: FUZZ_LIMIT_RUNS },
    );
    // Not vacuous: every kind of answer occurred.
    for (const kind of ['200', '400', '401', '429ip', '429token'])
      expect(seen.get(kind) ?? 0, kind).toBeGreaterThan(FUZZ_LIMIT_RUNS / 10);
  }, 120_000);
});
