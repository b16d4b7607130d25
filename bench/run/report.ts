/**
 * The report phase of `npm run bench`: the Markdown section of one scale (targets, latency, the
 * help desk's SQL side by side, default vs index-backed, engines, contact layouts, throughput, fixed
 * costs), written into bench/RESULTS.md between its markers.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeLayout } from '../perf/indexes.js';
import { SERVER_NODE_OPTIONS } from '../perf/server.js';
import { evenRunCount, evenRuns, SHORT_STATEMENT_MS, SHORT_STATEMENT_PAIRS, type LatencyResult } from '../perf/measure.js';
import { median, ms, ratio, summarize, table, type Summary } from '../perf/stats.js';
import type { BenchQuery, ToolName } from '../perf/workload.js';
import { redact, STATEMENT_TIMEOUT_MS } from './args.js';
import type { Results } from './results.js';
import { PER_COLUMN_PHASE } from './runs.js';
import { searchEnginePhase, targets } from './targets.js';
import { triageTable } from '../perf/triage.js';
import type { KindRow } from '../record/types.js';

const PG = 'Postgres engine';

/** Geometric mean of the finite positive values; NaN when there are none. */
export function geoMean(values: readonly number[]): number {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return Number.NaN;
  return Math.exp(ok.reduce((s, v) => s + Math.log(v), 0) / ok.length);
}

const times = (v: number) => (Number.isFinite(v) ? `×${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}` : '–');
const pair = (s: Summary | undefined) => (s && s.n > 0 ? `${ms(s.p50)} / ${ms(s.p95)}` : '–');

/** The help desk SQL's runs of each query, pooled over the phases that ran it on the main layout. */
export function helpdeskPool(r: Results): Map<BenchQuery, number[]> {
  const pool = new Map<BenchQuery, number[]>();
  const add = (res: LatencyResult | undefined) => {
    for (const s of res?.samples ?? []) if (s.helpdesk.length) pool.set(s.query, [...(pool.get(s.query) ?? []), ...s.helpdesk]);
  };
  for (const p of r.phases) if (p.contactLayout === 'combined') for (const res of Object.values(p.byTool)) add(res);
  for (const { off } of Object.values(r.defaultVariant)) add(off);
  return pool;
}

export interface Side {
  /** searchdesk's MCP figures of the row's queries. */
  summary: Summary;
  /** Per query: help desk median ÷ searchdesk median. */
  speedups: Map<BenchQuery, number>;
  medians: Map<BenchQuery, number>;
  /** Per query: help desk median ÷ the direct path's median (the core's statements, no surface). */
  coreSpeedups: Map<BenchQuery, number>;
  /**
   * Per query: help desk median ÷ the median of the same tools/call as one plain JSON-RPC POST
   * (the server's whole answer, without the SDK client's own request and result handling).
   */
  rawSpeedups: Map<BenchQuery, number>;
}

export function side(res: LatencyResult | undefined, hd: Map<BenchQuery, number[]>): Side | undefined {
  if (!res || res.samples.every((s) => s.mcp.length === 0)) return undefined;
  const speedups = new Map<BenchQuery, number>();
  const medians = new Map<BenchQuery, number>();
  const coreSpeedups = new Map<BenchQuery, number>();
  const rawSpeedups = new Map<BenchQuery, number>();
  for (const s of res.samples) {
    if (s.mcp.length === 0) continue;
    medians.set(s.query, median(s.mcp));
    const h = hd.get(s.query);
    if (h?.length) speedups.set(s.query, median(h) / median(s.mcp));
    const direct = s.directBlock.length > 0 ? s.directBlock : s.direct;
    if (h?.length && direct.length) coreSpeedups.set(s.query, median(h) / median(direct));
    if (h?.length && s.raw.length) rawSpeedups.set(s.query, median(h) / median(s.raw));
  }
  return { summary: res.mcp, speedups, medians, coreSpeedups, rawSpeedups };
}

function geoCell(sd: Side | undefined, which: 'coreSpeedups' | 'rawSpeedups'): string {
  return sd && sd[which].size > 0 ? times(geoMean([...sd[which].values()])) : '–';
}

function speedupCell(hdSummary: Summary, sd: Side | undefined): string {
  if (!sd) return '–';
  return `**${times(geoMean([...sd.speedups.values()]))}** (${ratio(hdSummary.p50, sd.summary.p50)} / ${ratio(hdSummary.p95, sd.summary.p95)})`;
}

export interface SideRow {
  label: string;
  tool: ToolName;
  queries: number;
  hd: Summary;
  def?: Side;
  on?: Side;
}

/** The side-by-side rows: per tool, the Postgres engine, then the search engine's for messages and search_all. */
export function sideRows(r: Results, hd: Map<BenchQuery, number[]>): SideRow[] {
  const phase = (label: string) => r.phases.find((p) => p.label === label);
  const es = searchEnginePhase(r);
  const hdOf = (res: LatencyResult | undefined) => summarize(evenRuns((res?.samples ?? []).map((s) => hd.get(s.query) ?? [])));
  const rows: SideRow[] = [];
  const pgPhase = phase(PG);
  for (const tool of ['search_contacts', 'search_conversations', 'search_articles', 'search_messages', 'search_all'] as const) {
    const on = pgPhase?.byTool[tool];
    if (!on) continue;
    const off = r.defaultVariant[tool as 'search_contacts']?.off;
    rows.push({
      label: tool === 'search_messages' || tool === 'search_all' ? `${tool} (Postgres engine)` : tool,
      tool,
      queries: on.samples.length,
      hd: hdOf(on),
      def: side(off, hd),
      on: side(on, hd),
    });
    if ((tool === 'search_messages' || tool === 'search_all') && es !== PG) {
      const onEs = phase(es)?.byTool[tool];
      if (onEs) rows.push({ label: `${tool} (${es})`, tool, queries: onEs.samples.length, hd: hdOf(onEs), on: side(onEs, hd) });
    }
  }
  return rows;
}

/** Geo-means over all tools, per message engine: default (through MCP), and index-backed through MCP, the minimal client, core only. */
export interface GeoFigures {
  messages: string;
  default?: number;
  indexBacked: number;
  raw: number;
  core: number;
}

export function geoFigures(r: Results, rows: SideRow[]): GeoFigures[] {
  type Speedups = 'speedups' | 'rawSpeedups' | 'coreSpeedups';
  const geo = (sides: Array<Side | undefined>, which: Speedups = 'speedups') =>
    geoMean(sides.flatMap((s) => (s ? [...s[which].values()] : [])));
  const of = (sides: Array<Side | undefined>) => ({
    indexBacked: geo(sides),
    raw: geo(sides, 'rawSpeedups'),
    core: geo(sides, 'coreSpeedups'),
  });
  const rowOf = (label: string) => rows.find((x) => x.label === label);
  const es = searchEnginePhase(r);
  const msgPg = rowOf('search_messages (Postgres engine)');
  const basic = ['search_contacts', 'search_conversations', 'search_articles'].map(rowOf);
  const allPg = rowOf('search_all (Postgres engine)');
  const out: GeoFigures[] = [
    {
      messages: 'Postgres message engine',
      // messages do not depend on the flag: their index-backed figures count for the default column too
      default: geo([...basic.map((x) => x?.def), allPg?.def, msgPg?.on]),
      ...of([...basic.map((x) => x?.on), allPg?.on, msgPg?.on]),
    },
  ];
  if (es !== PG)
    out.push({
      messages: `${es} messages`,
      ...of([...basic.map((x) => x?.on), rowOf(`search_messages (${es})`)?.on, rowOf(`search_all (${es})`)?.on]),
    });
  return out;
}

/** Per kind of query of each row: where each shape stands, so that a miss on one shape is not hidden by a geo-mean. */
export type KindFigures = Required<KindRow>;

export function kindFigures(rows: SideRow[], hd: Map<BenchQuery, number[]>): KindFigures[] {
  const out: KindFigures[] = [];
  const medianOf = (values: number[]) => (values.length ? median(values) : Number.NaN);
  for (const x of rows) {
    const byKind = new Map<string, BenchQuery[]>();
    for (const q of x.on?.medians.keys() ?? []) byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), q]);
    for (const [kind, queries] of byKind) {
      const of = (m: Map<BenchQuery, number> | undefined) => queries.flatMap((q) => (m?.has(q) ? [m.get(q) as number] : []));
      const core = of(x.on?.coreSpeedups);
      out.push({
        tool: x.label,
        kind,
        queries: queries.length,
        helpdeskMs: medianOf(queries.flatMap((q) => (hd.get(q)?.length ? [median(hd.get(q) as number[])] : []))),
        searchdeskMs: medianOf(of(x.on?.medians)),
        speedup: geoMean(of(x.on?.speedups)),
        speedupRaw: geoMean(of(x.on?.rawSpeedups)),
        speedupCore: geoMean(core),
        worstCore: core.length ? Math.min(...core) : Number.NaN,
      });
    }
  }
  return out;
}

/** The side-by-side section's heading and how to read it. */
function helpdeskIntro(r: Results): string[] {
  return [
    "### searchdesk vs the help desk's own SQL",
    '',
    "The help desk's search without searchdesk (`bench/perf/helpdesk.ts`): contacts `account_id = $1 AND (name ILIKE '%q%' OR email ILIKE … OR phone_number ILIKE … OR identifier ILIKE …) ORDER BY last_activity_at DESC NULLS LAST, id DESC LIMIT 15`; " +
      "conversations joined to their contact, `cast(display_id as text) ILIKE '%q%' OR contacts.name/email/phone_number/identifier ILIKE '%q%'`, accessible inboxes, `ORDER BY created_at DESC`; " +
      "messages `content ILIKE '%q%'`, incoming/outgoing, accessible inboxes, the 90-day window, `ORDER BY created_at DESC`; " +
      "articles `to_tsvector('simple', title || ' ' || description || ' ' || content) @@ to_tsquery('simple', 'w1:*' & 'w2:*' …) ORDER BY ts_rank(…) DESC`; " +
      'search_all runs the four one after another on one connection, as the help desk does. Same filters as searchdesk (since/until, from, inbox_id, page), same callers, same data, same indexes. ' +
      "The statements of a tool's queries run warm, in a block right after searchdesk's measured calls of that tool (not between two calls: a statement reading a whole table would evict the other side's pages from shared_buffers, and neither would be warm)" +
      (Number.isFinite(r.args.helpdeskReps)
        ? ` — here at most ${r.args.helpdeskReps} time(s) per query over all phases (\`--helpdesk-reps\`), since it takes seconds at this scale, except a statement whose first run took under ${SHORT_STATEMENT_MS} ms, which runs every time; `
        : '; ') +
      `a query whose statement takes under ${SHORT_STATEMENT_MS} ms gets ${SHORT_STATEMENT_PAIRS} pairs (statement, core) in the block instead of ${r.args.reps}, as the two sides are closest there; ` +
      "only the help desk's SQL is timed, " +
      "searchdesk's figure is the whole MCP call (HTTP, token and access look-ups, records, JSON).",
    '',
    "Speed-up = help desk ÷ searchdesk, **geo-mean of the per-query speed-ups** (per-query = median of the help desk's runs of that query ÷ median of searchdesk's), then the ratio of the p50s / of the p95s. " +
      "Default = the account's search_with_gin cleared (one call per query; search_messages does not depend on the flag, so the geo-mean over all tools counts its index-backed figures in both columns). " +
      "MCP, minimal client = the same geo-mean against the same tools/call sent as one plain JSON-RPC POST next to each index-backed call (bench/perf/rawhttp.ts): the server's whole answer (HTTP, MCP, token and access look-ups, records, JSON) without the SDK client's own request and result handling, 1–2 ms a call on this 2-core machine (Latency per tool: Overhead (SDK) − Overhead (server)). " +
      "Core only = the same geo-mean against the direct path (the core's statements and record reads on a pool set up like the server's, no HTTP, MCP or access look-ups), run again in the help desk's block right next to each of its statements, order alternating: statement against statement, measured alike.",
    '',
  ];
}

function helpdeskSection(r: Results, out: string[]): void {
  const hd = helpdeskPool(r);
  if (hd.size === 0) return;
  const rows = sideRows(r, hd);
  const bold = (v: number | undefined) => (v === undefined ? '' : `**${times(v)}**`);
  const geoRows: string[][] = geoFigures(r, rows).map((g) => [
    `**Geo-mean, all tools, ${g.messages}**`,
    '',
    '',
    '',
    bold(g.default),
    '',
    bold(g.indexBacked),
    bold(g.raw),
    bold(g.core),
  ]);
  out.push(...helpdeskIntro(r));
  out.push(
    table(
      [
        'Tool',
        'Queries',
        'Help desk SQL p50 / p95 ms',
        'searchdesk default p50 / p95 ms',
        'Speed-up default',
        'searchdesk index-backed p50 / p95 ms',
        'Speed-up index-backed',
        'Speed-up index-backed, MCP minimal client',
        'Speed-up index-backed, core only',
      ],
      [
        ...rows.map((x) => [
          x.label,
          String(x.queries),
          pair(x.hd),
          pair(x.def?.summary),
          speedupCell(x.hd, x.def),
          pair(x.on?.summary),
          speedupCell(x.hd, x.on),
          geoCell(x.on, 'rawSpeedups'),
          geoCell(x.on, 'coreSpeedups'),
        ]),
        ...geoRows,
      ],
    ),
    '',
  );
  const floors = r.phases.filter((p) => p.messageFloorMs !== undefined);
  if (floors.length)
    out.push(
      `A message search no message matches, core only (median of 40, warm): ${floors.map((p) => `${p.label} ${ms(p.messageFloorMs ?? Number.NaN)} ms`).join(', ')}. ` +
        "No message search on an engine is faster than its figure, whatever its words. On Elasticsearch and OpenSearch it is the search's one round trip; a page of matches adds the read of its records from Postgres, which the contract requires (records always come from Postgres). " +
        'A word whose help desk statement takes less than that cannot be found faster on that engine.',
      '',
    );

  detailSections(hd, rows, out);
  layoutSection(r, out);
}

/** Per kind of query and per query, each in a collapsed block. */
function detailSections(hd: Map<BenchQuery, number[]>, rows: SideRow[], out: string[]): void {
  kindSection(hd, rows, out);
  perQuerySection(hd, rows, out);
}

function perQuerySection(hd: Map<BenchQuery, number[]>, rows: SideRow[], out: string[]): void {
  const detail: string[][] = [];
  for (const x of rows)
    for (const q of [...(x.on?.medians.keys() ?? [])]) {
      const h = hd.get(q);
      detail.push([
        x.label,
        q.kind,
        q.role,
        `\`${JSON.stringify(q.args)}\``,
        ms(h?.length ? median(h) : Number.NaN),
        ms(x.def?.medians.get(q) ?? Number.NaN),
        times(x.def?.speedups.get(q) ?? Number.NaN),
        ms(x.on?.medians.get(q) ?? Number.NaN),
        times(x.on?.speedups.get(q) ?? Number.NaN),
        times(x.on?.rawSpeedups.get(q) ?? Number.NaN),
        times(x.on?.coreSpeedups.get(q) ?? Number.NaN),
      ]);
    }
  out.push(
    '<details><summary>Per-query speed-ups (medians, ms)</summary>',
    '',
    table(
      [
        'Tool',
        'Kind',
        'As',
        'Arguments',
        'Help desk SQL',
        'Default',
        'Speed-up',
        'Index-backed',
        'Speed-up',
        'MCP minimal client',
        'Core only',
      ],
      detail,
    ),
    '',
    '</details>',
    '',
  );
}

function kindSection(hd: Map<BenchQuery, number[]>, rows: SideRow[], out: string[]): void {
  const kinds: string[][] = kindFigures(rows, hd).map((k) => [
    k.tool,
    k.kind,
    String(k.queries),
    ms(k.helpdeskMs),
    ms(k.searchdeskMs),
    times(k.speedup),
    times(k.speedupRaw),
    times(k.speedupCore),
    times(k.worstCore),
  ]);
  out.push(
    '<details><summary>Speed-ups by kind of query (index-backed; ms are medians of the per-query medians)</summary>',
    '',
    table(
      [
        'Tool',
        'Kind',
        'Queries',
        'Help desk SQL',
        'Index-backed',
        'Speed-up (geo-mean)',
        'MCP minimal client',
        'Core only',
        'Core only, worst query',
      ],
      kinds,
    ),
    '',
    '</details>',
    '',
  );
}

/** The contact layouts side by side: the help desk's combined index and one per column. */
function layoutSection(r: Results, out: string[]): void {
  const phase = (label: string) => r.phases.find((p) => p.label === label);
  const pgPhase = phase(PG);
  const perColumn = phase(PER_COLUMN_PHASE);
  if (perColumn && pgPhase) {
    const layoutRows: string[][] = [];
    for (const tool of ['search_contacts', 'search_conversations'] as const)
      for (const [label, p] of [
        ["combined (the help desk's)", pgPhase],
        ['per-column', perColumn],
      ] as const) {
        const res = p.byTool[tool];
        if (!res) continue;
        const own = new Map(res.samples.map((s) => [s.query, s.helpdesk]));
        const sd = side(res, own);
        layoutRows.push([tool, label, pair(res.mcp), pair(res.helpdesk), sd ? times(geoMean([...sd.speedups.values()])) : '–']);
      }
    out.push(
      '### Contact index layout: combined vs per-column',
      '',
      `Main phases: ${describeLayout(r.pgIndexes.contactsMain)} — the help desk's own layout. Per-column phase: that index dropped and one trigram GIN per column built instead ` +
        `(${r.pgIndexes.layoutSeconds.perColumn?.toFixed(0) ?? '?'} s), both sides measured again (index-backed, Postgres engine, help desk SQL paired); the combined index is put back afterwards.`,
      '',
      table(
        ['Tool', 'Contact indexes', 'searchdesk p50 / p95 ms', 'Help desk SQL p50 / p95 ms', 'Speed-up (geo-mean)'],
        layoutRows,
      ),
      '',
    );
  }
}

export function report(r: Results): string {
  const a = r.args;
  const out: string[] = [];
  out.push(`## Scale ${a.scale}`, '');
  out.push(
    `Run ${r.startedAt.toISOString()}, ${(r.seconds / 60).toFixed(1)} min. Database \`${redact(a.databaseUrl)}\`; ` +
      `${Object.values(r.workload.byTool).reduce((n, l) => n + l.length, 0)} queries sampled from the data (seed ${a.seed}), ` +
      `${a.reps} measured calls each at concurrency 1 after one warm-up call, through \`NODE_OPTIONS=${SERVER_NODE_OPTIONS} node dist/cli.js serve --http --port 0\` ` +
      `(MCP Streamable HTTP, SDK client, header \`api_access_token\`; ⅓ of the queries as the agent \`bench-agent-token\`, the rest as the administrator). ` +
      `Statement timeout ${STATEMENT_TIMEOUT_MS / 1000} s (SEARCHDESK_STATEMENT_TIMEOUT_MS).`,
    '',
  );
  out.push('```sh', `npm run bench -- ${a.argv.join(' ')}`, '```', '');
  out.push('### Machine', '', table(['', ''], Object.entries(r.machine)), '');
  out.push(
    'Other engineers ran tests on this machine at the same time (see the load averages): figures are from a shared 2-core box, not an idle one.',
    '',
  );
  const idx = Object.entries(r.indexes).map(([k, v]) =>
    typeof v === 'string'
      ? [k, v, '', '']
      : [
          k,
          `\`${v.alias}\``,
          v.docs.toLocaleString('en'),
          v.builtSeconds > 0 ? `built in this run, ${v.builtSeconds.toFixed(0)} s` : 'existed',
        ],
  );
  out.push('### Indexes', '');
  out.push(
    `Postgres: searchdesk's own (\`searchdesk db indexes\`): ${r.pgIndexes.searchdesk.map((i) => `\`${i.name}\` (${i.action})`).join(', ') || 'none'}. ` +
      `Contacts in the main phases: ${describeLayout(r.pgIndexes.contactsMain)}` +
      (r.pgIndexes.layoutSeconds.main > 1 ? ` (set up in ${r.pgIndexes.layoutSeconds.main.toFixed(0)} s)` : '') +
      `; at the start of the run: ${describeLayout(r.pgIndexes.contactsAtStart)} (put back at the end).`,
    '',
  );
  if (idx.length > 0) out.push(table(['Message index', 'Alias', 'Documents', ''], idx), '');

  // Targets
  out.push('### Targets (issue 11: index-backed, warm, concurrency 1, MCP over HTTP)', '');
  if (a.scale !== 'L') out.push(`The targets are set for scale L; at scale ${a.scale} they are shown for reference.`, '');
  out.push(
    table(
      ['Target', 'Limit', 'Measured', ''],
      targets(r).map((t) => [
        t.name,
        `≤ ${ms(t.limit)} ${t.unit}`,
        `${t.measured === Number.POSITIVE_INFINITY ? 'timed out' : ms(t.measured)} ${t.unit}`,
        Number.isNaN(t.measured)
          ? '–'
          : t.measured <= t.limit
            ? '✓'
            : `✗${r.plans[t.name] ? ` (plan: \`${r.plans[t.name]}\`)` : ''}`,
      ]),
    ),
    '',
  );

  helpdeskSection(r, out);

  // Latency per tool
  const latRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      latRows.push([
        tool,
        phase.label,
        String(res.mcp.n),
        ms(res.mcp.p50),
        ms(res.mcp.p95),
        ms(res.mcp.p99),
        pair(res.direct),
        `${ratio(res.mcp.p50, res.direct.p50)} / ${ratio(res.mcp.p95, res.direct.p95)}`,
        ms(median(res.overheads)),
        ms(res.raw.p50),
        ms(median(res.serverOverheads)),
        String(res.errors.length + (res.skipped ? ` (+${res.skipped} skipped)` : '')),
        Object.entries(res.engines)
          .map(([e, n]) => `${e}:${n}`)
          .join(' '),
      ]);
    }
  out.push(
    '### Latency per tool (MCP over HTTP, concurrency 1, index-backed variant)',
    '',
    "Direct = the same search without the MCP surface, measured right next to each MCP call: the core's SQL builders on a pg Pool with the server's session settings, " +
      "message ids from the engine's own request (SQL, or the query DSL through the Elasticsearch/OpenSearch client), then the core's record SQL. " +
      'Ratio = MCP ÷ direct; overhead (SDK) = median of (SDK callTool − direct) over paired calls; ' +
      "overhead (server) = median of (the same tools/call as one plain JSON-RPC POST − direct, through a minimal keep-alive HTTP client, bench/perf/rawhttp.ts), i.e. the server surface without the SDK client's (or fetch's) own request and result handling.",
    '',
    table(
      [
        'Tool',
        'Phase',
        'Calls',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'Direct p50 / p95 ms',
        'Ratio p50 / p95',
        'Overhead ms (SDK)',
        'JSON-RPC POST p50 ms',
        'Overhead ms (server)',
        'Errors',
        'Answered by',
      ],
      latRows,
    ),
    '',
  );

  // Default vs index-backed
  const dvRows = Object.entries(r.defaultVariant).map(([tool, { off, on }]) => [
    tool,
    String(off.mcp.n),
    ms(off.mcp.p50),
    ms(off.mcp.p95),
    ms(off.mcp.max),
    ms(on.mcp.p50),
    ms(on.mcp.p95),
    `${ratio(off.mcp.p50, on.mcp.p50)} / ${ratio(off.mcp.p95, on.mcp.p95)}`,
    String(off.errors.filter((e) => !e.startsWith('help desk SQL')).length),
  ]);
  out.push(
    '### Default vs index-backed variant (search_with_gin off → on)',
    '',
    `The same queries through MCP with the account's flag off (one call each, right after the index-backed runs, Postgres message engine), then the index-backed figures of those queries. ` +
      (a.defaultCap < a.perTool
        ? `**Capped**: only the first ${a.defaultCap} queries per tool run with the flag off, because the default variant takes seconds per query at this scale. `
        : '') +
      'search_contacts has one SQL for both variants (its trigram index serves either), so its ratio only shows noise.',
    '',
    table(
      [
        'Tool',
        'Queries',
        'Default p50 ms',
        'Default p95 ms',
        'Default max ms',
        'Index-backed p50 ms',
        'Index-backed p95 ms',
        'Speed-up p50 / p95',
        'Errors (default)',
      ],
      dvRows,
    ),
    '',
  );

  // Message engines
  const engineRows = r.phases
    .filter((p) => p.contactLayout === 'combined')
    .map((p) => [p.label, p.byTool.search_messages] as const)
    .filter((x): x is readonly [string, LatencyResult] => x[1] !== undefined)
    .map(([label, res]) => {
      const limit = label === PG ? 300 : 30;
      return [
        label,
        String(res.mcp.n),
        ms(res.mcp.p50),
        ms(res.mcp.p95),
        ms(res.mcp.p99),
        pair(res.direct),
        ratio(res.mcp.p50, res.direct.p50),
        res.mcp.p95 <= limit ? `✓ ≤ ${limit}` : `✗ > ${limit}`,
      ];
    });
  out.push(
    '### Message engines side by side (search_messages)',
    '',
    table(['Engine', 'Calls', 'p50 ms', 'p95 ms', 'p99 ms', 'Direct p50 / p95 ms', 'Ratio p50', 'p95 target'], engineRows),
    '',
  );
  if (!r.phases.some((p) => p.label === 'OpenSearch (Searchkick format)'))
    out.push(
      `The help desk's Searchkick-format index was not measured at this scale${
        typeof r.indexes['OpenSearch (Searchkick format)'] === 'string' ? ` (${r.indexes['OpenSearch (Searchkick format)']})` : ''
      }.`,
      '',
    );

  // Throughput
  out.push(
    `### Throughput (mixed workload of all five tools, ${r.throughputEngine}, ${a.duration} s per level)`,
    '',
    `Server RSS idle (after the latency runs' warm-up): ${ms(r.idleRssMb)} MB.` +
      (r.previousPeakRssMb !== undefined
        ? ` Peak at concurrency 32 in this scale's previous run: ${ms(r.previousPeakRssMb)} MB.`
        : ''),
    '',
    table(
      ['Concurrency', 'Calls/s', 'p50 ms', 'p95 ms', 'p99 ms', 'Errors', 'Peak RSS MB'],
      r.throughput.map((t) => [
        String(t.concurrency),
        t.callsPerSecond.toFixed(1),
        ms(t.latency.p50),
        ms(t.latency.p95),
        ms(t.latency.p99),
        String(t.errors),
        ms(t.peakRssMb),
      ]),
    ),
    '',
  );
  const tErr = r.throughput.flatMap((t) => t.firstErrors.map((e) => `c=${t.concurrency}: ${e}`));

  // Fixed costs
  out.push('### stdio cold start and per-call fixed cost', '');
  if (r.overhead) {
    const o = r.overhead;
    out.push(
      '`bench/overhead.js` (run by the bench on the same database): stdio cold start = spawn of `node dist/cli.js` (DATABASE_URL, SEARCHDESK_ACCESS_TOKEN) to the answer of `tools/list`, ' +
        `median ${ms(o.coldStartMedianMs)} ms over ${o.coldStartMs.length} spawns (${o.coldStartMs.map((v) => ms(v)).join(', ')} ms), peak RSS ${ms(o.coldStartPeakRssMb)} MB; ` +
        `a bare \`node -e ''\` took ${ms(o.bareNodeMs)} ms at the same time. Fixed cost per call = (plain JSON-RPC POST to /mcp, or the REST GET) − (the same search in-process through the core), paired, median, ` +
        "through a minimal keep-alive HTTP client (bench/perf/rawhttp.ts: the server's own cost) and through fetch (undici: its own per-request work included)" +
        (o.healthzRawMs !== undefined
          ? `; GET /healthz, which reaches neither the core nor the token check, took ${ms(o.healthzRawMs)} ms through the minimal client and ${ms(o.healthzFetchMs ?? Number.NaN)} ms through fetch:`
          : ':'),
      '',
      table(
        [
          'Query',
          'Core p50 ms',
          'MCP POST p50 ms',
          'MCP fixed cost p50 ms',
          'MCP fixed cost, fetch, p50 ms',
          'REST p50 ms',
          'REST fixed cost p50 ms',
          'REST fixed cost, fetch, p50 ms',
        ],
        o.rows.map((x) => [
          x.label,
          ms(x.coreP50),
          ms(x.mcpP50),
          ms(x.mcpOverheadP50),
          ms(x.mcpFetchOverheadP50 ?? Number.NaN),
          ms(x.restP50),
          ms(x.restOverheadP50),
          ms(x.restFetchOverheadP50 ?? Number.NaN),
        ]),
      ),
      '',
    );
  } else
    out.push(
      `\`node dist/cli.js\` (stdio) with DATABASE_URL and SEARCHDESK_ACCESS_TOKEN, from spawn to the answer of the first \`tools/list\` (SDK client): ` +
        `median ${ms(median(r.coldStart))} ms over ${r.coldStart.length} runs (${r.coldStart.map((v) => ms(v)).join(', ')} ms). Fixed cost: not measured (--no-overhead).`,
      '',
    );

  // Per kind (index-backed, Postgres phase + engines)
  const kindRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      if (phase.contactLayout !== 'combined') continue;
      if (phase.label !== PG && tool !== 'search_messages') continue;
      if (phase.label === PG && tool === 'search_all' && r.phases.some((p) => p.byTool.search_all && p !== phase)) continue;
      const kinds = new Map<string, { mcp: number[]; hd: number[] }>();
      const even = evenRunCount(res.samples.map((s) => s.helpdesk));
      for (const s of res.samples) {
        const k = kinds.get(s.query.kind) ?? { mcp: [], hd: [] };
        k.mcp.push(...s.mcp);
        k.hd.push(...s.helpdesk.slice(0, even));
        kinds.set(s.query.kind, k);
      }
      for (const [kind, v] of kinds)
        kindRows.push([
          tool,
          phase.label,
          kind,
          String(v.mcp.length),
          ms(median(v.mcp)),
          ms(v.mcp.length ? Math.max(...v.mcp) : Number.NaN),
          ms(median(v.hd)),
        ]);
    }
  out.push(
    '### Latency by kind of query (MCP, index-backed)',
    '',
    table(['Tool', 'Engine', 'Kind', 'Calls', 'p50 ms', 'max ms', 'Help desk SQL p50 ms'], kindRows),
    '',
  );

  const slowRows: string[][] = [];
  for (const phase of r.phases)
    for (const [tool, res] of Object.entries(phase.byTool)) {
      const worst = [...res.samples]
        .filter((s) => s.mcp.length > 0)
        .sort((x, y) => median(y.mcp) - median(x.mcp))
        .slice(0, 2);
      for (const w of worst)
        slowRows.push([
          tool,
          phase.label,
          w.query.role,
          `\`${JSON.stringify(w.query.args)}\``,
          ms(median(w.mcp)),
          ms(median(w.direct)),
          ms(median(w.helpdesk)),
        ]);
    }
  out.push(
    '### Slowest queries (median of their calls)',
    '',
    table(['Tool', 'Phase', 'As', 'Arguments', 'MCP ms', 'Direct ms', 'Help desk SQL ms'], slowRows),
    '',
  );

  triageSection(r, out);

  const errs = [
    ...r.phases.flatMap((p) => Object.values(p.byTool).flatMap((t) => t.errors.map((e) => `${p.label}: ${e}`))),
    ...Object.values(r.defaultVariant).flatMap((d) => d.off.errors.map((e) => `default variant: ${e}`)),
    ...tErr,
  ];
  if (errs.length > 0 || r.notes.length > 0) {
    out.push('### Errors and notes', '');
    for (const e of [...r.notes, ...errs].slice(0, 30)) out.push(`- ${e.replace(/\n/g, ' ')}`);
    if (errs.length > 30) out.push(`- … ${errs.length - 30} more`);
    out.push('');
  }
  return out.join('\n');
}

/** Issue 48's targets: the sampled list's p95 and get_account's through MCP, in ms. */
const LIST_P95_MS = 50;
const GET_ACCOUNT_P95_MS = 20;

/** The triage phase (run/triage.ts): its table and issue 48's three targets. */
export function triageSection(r: Pick<Results, 'triage'>, out: string[]): void {
  const t = r.triage;
  if (!t) return;
  const rows = t.results.rows;
  out.push('### Triage: list_conversations and get_account (issue 48)', '');
  out.push(
    `MCP over HTTP (a server of its own, one SDK client per role, warm, concurrency 1), the core alone (request pipeline, records and counts) and the help desk's own statements for the same list (its three \`.count\`s and its page, one after the other), ${t.reps} calls each after one warm-up. ` +
      `Busy label \`${t.busyLabel}\`, rare labels \`${t.rareLabels.join('`, `')}\`; administrator \`bench-admin-token\`, agent \`bench-agent-token\`` +
      (t.directoryAccount === undefined ? '.' : `; get_account in the directory account (${t.directoryAccount}) too.`),
    '',
  );
  out.push(...triageTable(t.results), '');
  const pooled = rows.find((row) => row.role === 'both');
  const directory = rows.filter((row) => t.directoryAccount !== undefined && row.name.includes(`account ${t.directoryAccount}:`));
  const slower = rows.filter((row) => row.helpdesk && row.helpdesk.p50 < row.core.p50);
  const met = (ok: boolean) => (ok ? 'met' : '**missed**');
  const worstAccount = Math.max(...directory.map((row) => row.mcp?.p95 ?? Number.NaN));
  out.push(
    `- list_conversations p95 ≤ ${LIST_P95_MS} ms over the sample, MCP: ${pooled?.mcp ? `${pooled.mcp.p95.toFixed(1)} ms, ${met(pooled.mcp.p95 <= LIST_P95_MS)}` : '–'}`,
    `- get_account p95 ≤ ${GET_ACCOUNT_P95_MS} ms in the directory account, MCP: ${directory.length > 0 ? `${worstAccount.toFixed(1)} ms (slower role), ${met(worstAccount <= GET_ACCOUNT_P95_MS)}` : 'no directory account'}`,
    `- searchdesk at least as fast as the help desk, core only (p50), every combination: ${slower.length === 0 ? 'met' : `**missed** on ${slower.map((row) => `${row.role} ${row.name}`).join('; ')}`}`,
    '',
  );
}

// ---------------------------------------------------------------- the file

const FILE_HEADER = `# searchdesk benchmark results

Produced by \`npm run bench\` (bench/run.ts; see bench/README.md). Each scale has its own section,
replaced when that scale is run again. Analysis of misses is written by hand below the generated sections.
`;

const markers = (scale: string) => [`<!-- bench:${scale}:start -->`, `<!-- bench:${scale}:end -->`] as const;

/** The current section of `scale` in `file`, if any. */
export function readSection(file: string, scale: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const [start, end] = markers(scale);
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  return i !== -1 && j > i ? text.slice(i, j) : undefined;
}

/** Peak RSS at concurrency 32 in a section's throughput table. */
export function peakRssOf(section: string | undefined): number | undefined {
  const m = section && /^\| 32 \|(?:[^|]*\|){5} ([\d.]+) \|$/m.exec(section);
  return m ? Number(m[1]) : undefined;
}

export function writeSection(file: string, scale: string, section: string): void {
  const [start, end] = markers(scale);
  const block = `${start}\n${section}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : FILE_HEADER;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i !== -1 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else {
    // Sections in scale order S, M, L, before any hand-written text that follows them.
    const later = ['S', 'M', 'L']
      .slice(['S', 'M', 'L'].indexOf(scale) + 1)
      .map((s) => text.indexOf(markers(s)[0]))
      .filter((k) => k !== -1);
    const at = later.length > 0 ? Math.min(...later) : -1;
    if (at !== -1) text = `${text.slice(0, at)}${block}\n\n${text.slice(at)}`;
    else {
      const lastEnd = ['S', 'M', 'L']
        .map((s) => markers(s)[1])
        .map((m) => [text.indexOf(m), m.length] as const)
        .filter(([k]) => k !== -1);
      const after = lastEnd.length > 0 ? Math.max(...lastEnd.map(([k, n]) => k + n)) : -1;
      text = after !== -1 ? `${text.slice(0, after)}\n\n${block}${text.slice(after)}` : `${text.trimEnd()}\n\n${block}\n`;
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
