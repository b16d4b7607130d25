/**
 * The soak's load: a deterministic mix of tool calls (every tool, common and rare words, names,
 * display ids, pages, time bounds, sender and inbox filters, two callers, and a few calls that
 * must come back as the contract's tool errors), run by N workers, each with its own MCP client
 * over Streamable HTTP. A call fails when it throws (transport, timeout, JSON-RPC error), when a
 * search comes back as a tool error, or when an expected tool error has another text.
 */
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FIRST_NAMES, LAST_NAMES } from './generator/people.js';
import { WORDS } from './generator/vocabulary.js';

const DAY = 86_400;

export interface PlannedCall {
  token: string;
  tool: string;
  args: Record<string, unknown>;
  /** The tool error text this call must produce; undefined: it must succeed. */
  expectError?: string;
}

/** mulberry32: small, fast, seeded. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Plans the i-th call of a run deterministically from `seed`. */
export function planCall(seed: number, i: number, tokens: { admin: string; agent: string }): PlannedCall {
  const r = seededRandom(seed * 1_000_003 + i);
  const int = (min: number, max: number) => min + Math.floor(r() * (max - min + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  // Zipf-ish: mostly the first few hundred words, sometimes the long tail.
  const word = () => WORDS[Math.floor(WORDS.length ** (r() ** 1.6)) - 1] ?? 'order';
  const now = Math.floor(Date.now() / 1000);
  const token = r() < 0.7 ? tokens.admin : tokens.agent;
  const page = pick([1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3]);

  const roll = r();
  if (roll < 0.02) {
    return pick<PlannedCall>([
      { token, tool: 'search_contacts', args: { q: '   ' }, expectError: 'q must not be blank' },
      { token, tool: 'search_articles', args: { q: 'x', page: 0 }, expectError: 'page must be an integer between 1 and 500' },
      {
        token,
        tool: 'search_messages',
        args: { q: word(), since: now - 120 * DAY },
        expectError: 'Search is limited to the last 90 days',
      },
      { token, tool: 'search_all', args: { q: 'x', bogus: 1 }, expectError: 'unknown argument: bogus' },
    ]);
  }
  if (roll < 0.32) {
    const args: Record<string, unknown> = { q: r() < 0.25 ? `${word()} ${word()}` : word(), page };
    if (r() < 0.2) args.since = now - int(1, 89) * DAY;
    if (r() < 0.1) args.until = now - int(0, 30) * DAY;
    if (r() < 0.1) args.inbox_id = int(1, 60);
    if (r() < 0.05) args.from = `contact:${int(1, 100_000)}`;
    return { token, tool: 'search_messages', args };
  }
  if (roll < 0.52) {
    const q = pick([pick(FIRST_NAMES), pick(LAST_NAMES), `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`, String(int(100, 99_999))]);
    const args: Record<string, unknown> = { q, page };
    if (r() < 0.1) Object.assign(args, { since: now - int(30, 365) * DAY, until: now - int(0, 29) * DAY });
    return { token, tool: 'search_contacts', args };
  }
  if (roll < 0.72) {
    const q = pick([pick(LAST_NAMES), String(int(1, 220_000)), pick(FIRST_NAMES).toLowerCase()]);
    return { token, tool: 'search_conversations', args: { q, page } };
  }
  if (roll < 0.87) return { token, tool: 'search_articles', args: { q: r() < 0.3 ? `${word()} ${word()}` : word(), page } };
  return { token, tool: 'search_all', args: { q: pick([word(), pick(LAST_NAMES)]), page } };
}

/** One MCP client over Streamable HTTP, authenticated with `api_access_token`. */
export async function connectClient(baseUrl: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { api_access_token: token } },
  });
  const client = new Client({ name: 'searchdesk-soak', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** Why a call failed, or undefined when it did what was planned. */
export function judgeCall(call: PlannedCall, result: CallToolResult): string | undefined {
  const text = (result.content?.[0] as { text?: string } | undefined)?.text;
  if (call.expectError !== undefined) {
    return result.isError && text === call.expectError
      ? undefined
      : `expected "${call.expectError}", got ${JSON.stringify(result).slice(0, 200)}`;
  }
  if (result.isError) return `tool error: ${text}`;
  const payload = (result.structuredContent as { payload?: unknown } | undefined)?.payload;
  return typeof payload === 'object' && payload !== null ? undefined : 'no payload in structuredContent';
}

export interface LoadOptions {
  baseUrl: string;
  tokens: { admin: string; agent: string };
  seed: number;
  calls: number;
  concurrency: number;
  /** Stop issuing calls after this moment (ms since epoch), whatever the count. */
  deadline: number;
  callTimeoutMs: number;
}

export interface LoadState {
  /** Calls finished (successfully or not). */
  done: number;
  failed: number;
  expectedErrors: number;
  /** Latency in ms of call i (NaN when not run). */
  latencies: Float64Array;
  failures: Array<{ i: number; tool: string; reason: string }>;
  byTool: Record<string, number>;
  /** Tool of call i, to split latencies by tool. */
  tools: string[];
}

export function newLoadState(calls: number): LoadState {
  return {
    done: 0,
    failed: 0,
    expectedErrors: 0,
    latencies: new Float64Array(calls).fill(NaN),
    failures: [],
    byTool: {},
    tools: new Array<string>(calls),
  };
}

/** Runs the planned calls with `concurrency` workers; resolves when all are done or the deadline passed. */
export async function runLoad(opts: LoadOptions, state: LoadState): Promise<void> {
  let next = 0;
  const clients = new Map<string, Client>();
  const worker = async (w: number) => {
    for (const token of [opts.tokens.admin, opts.tokens.agent])
      clients.set(`${w}:${token}`, await connectClient(opts.baseUrl, token));
    while (next < opts.calls && Date.now() < opts.deadline) {
      const i = next++;
      const call = planCall(opts.seed, i, opts.tokens);
      const client = clients.get(`${w}:${call.token}`)!;
      const started = performance.now();
      let reason: string | undefined;
      try {
        const result = await client.callTool({ name: call.tool, arguments: call.args }, { timeout: opts.callTimeoutMs });
        reason = judgeCall(call, result);
      } catch (err) {
        reason = `threw: ${(err as Error).message}`;
      }
      state.latencies[i] = performance.now() - started;
      state.done += 1;
      state.byTool[call.tool] = (state.byTool[call.tool] ?? 0) + 1;
      state.tools[i] = call.tool;
      if (call.expectError !== undefined && reason === undefined) state.expectedErrors += 1;
      if (reason !== undefined) {
        state.failed += 1;
        if (state.failures.length < 20) state.failures.push({ i, tool: call.tool, reason });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close().catch(() => undefined)));
  }
}
