/**
 * bench/RESULTS.md from the records of bench/results/ and the hand-written bench/DECISIONS.md: a
 * pure function of its inputs (test/bench-results.test.ts renders the checked-in files and
 * compares). Every table has one column per run, ordered by scale (S, M, L) then data shape
 * ("default" first), so a second shape adds columns, not sections.
 */
import { ms, table } from '../perf/stats.js';
import { DEFAULT_SHAPE, type AnyRecord, type BenchRecord, type CoreRecord, type Provenance, type TriageRecord } from './types.js';

const SCALES = ['S', 'M', 'L'];

export const times = (v: number | undefined) =>
  v === undefined || !Number.isFinite(v) ? '–' : `×${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}`;
const num = (v: number | undefined | null) => (v === undefined || v === null ? '–' : ms(v));
const p5095 = (l: { p50: number; p95: number } | undefined) => (l ? `${num(l.p50)} / ${num(l.p95)}` : '–');
const loads = (l: number[] | undefined) => (l ? l.map((v) => v.toFixed(2)).join(' / ') : '?');

/** Scale, then the default shape before the others, then the rest of the key. */
export function runOrder(a: AnyRecord, b: AnyRecord): number {
  const scale = (r: AnyRecord) => (SCALES.includes(r.scale) ? SCALES.indexOf(r.scale) : SCALES.length);
  const shape = (r: AnyRecord) => (r.shape === DEFAULT_SHAPE ? '' : r.shape);
  return (
    scale(a) - scale(b) ||
    a.scale.localeCompare(b.scale) ||
    shape(a).localeCompare(shape(b)) ||
    JSON.stringify([a.tool, (a as CoreRecord).variant ?? '']).localeCompare(
      JSON.stringify([b.tool, (b as CoreRecord).variant ?? '']),
    )
  );
}

/** A run's column heading: "M · default" (a bench:core run adds its variant and engine). */
export function columnOf(r: AnyRecord): string {
  const base = `${r.scale} · ${r.shape}`;
  return r.tool === 'core' ? `${base} · ${r.variant} · ${r.engine}` : base;
}

/**
 * One row per key (in first-seen order over the runs), one cell per run: `cell` of the run's item
 * of that key, or "–" where the run has none.
 */
function byRun<R, T>(runs: R[], items: (run: R) => T[], key: (t: T) => string, cell: (t: T, run: R) => string): string[][] {
  // Each run's keys in its own order; a key one run lacks goes after the key before it in the run that has it.
  const keys: string[] = [];
  for (const run of runs) {
    let at = 0;
    for (const t of items(run)) {
      const k = key(t);
      const i = keys.indexOf(k);
      if (i === -1) keys.splice(at++, 0, k);
      else at = i + 1;
    }
  }
  return keys.map((k) => [
    k,
    ...runs.map((run) => {
      const t = items(run).find((x) => key(x) === k);
      return t === undefined ? '–' : cell(t, run);
    }),
  ]);
}

const split = (row: string[], at: number) => [...row[0]!.split(' \u0001 ').slice(0, at), ...row.slice(1)];

function provenanceRow(label: string, p: Provenance): string[] {
  return [
    label,
    p.date.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z'),
    `\`${p.commit}\``,
    p.load.start || p.load.end ? `${loads(p.load.start)} → ${loads(p.load.end)}` : (p.load.note ?? '?'),
    p.source,
  ];
}

/** A bench:core record's tools grouped by the run that measured them: "contacts, messages" → provenance. */
function sameProvenance(r: CoreRecord): Array<[string, Provenance]> {
  const groups = new Map<string, { tools: string[]; p: Provenance }>();
  for (const t of r.tools) {
    const key = JSON.stringify([t.date, t.commit, t.load, t.source]);
    const g = groups.get(key) ?? { tools: [], p: t };
    g.tools.push(t.tool.replace('search_', ''));
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => [g.tools.join(', '), g.p]);
}

function runsSection(records: AnyRecord[]): string[] {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const r of records) {
    const label = `${r.tool} · ${columnOf(r)}`;
    if (r.tool === 'core') for (const [tools, p] of sameProvenance(r)) rows.push(provenanceRow(`${label} (${tools})`, p));
    else rows.push(provenanceRow(label, r));
    const said = [...(r.notes ?? []), ...(r.command ? [`\`${r.command}\``] : [])];
    if (said.length) notes.push(`- ${label}: ${said.join(' ')}`);
  }
  return [
    '## Runs',
    '',
    "Load is `uptime`'s 1/5/15-minute average at the start → the end of the run, on a shared 2-core machine.",
    '',
    table(['Run', 'Started (UTC)', 'Commit', 'Load', 'Source'], rows),
    '',
    ...notes,
    '',
  ];
}

function targetsSection(runs: BenchRecord[]): string[] {
  const rows = byRun(
    runs,
    (r) => r.targets,
    (t) => t.name,
    (t) => {
      if (t.timedOut) return 'timed out ✗';
      if (t.measured === null) return '–';
      const limits = runs.flatMap((r) => r.targets.filter((x) => x.name === t.name).map((x) => x.limit));
      const limit = limits.every((l) => l === t.limit) ? '' : ` (≤ ${num(t.limit)})`;
      return `${num(t.measured)}${limit} ${t.measured <= t.limit ? '✓' : '✗'}`;
    },
  );
  const limitOf = (name: string) => {
    const ts = runs.flatMap((r) => r.targets.filter((t) => t.name === name));
    return ts.every((t) => t.limit === ts[0]!.limit) ? `≤ ${num(ts[0]!.limit)} ${ts[0]!.unit}` : 'per scale';
  };
  return [
    '## Targets',
    '',
    'Issue 11: index-backed, warm, concurrency 1, MCP over HTTP. They are set for scale L; other scales show them for reference.',
    '',
    table(
      ['Target', 'Limit', ...runs.map(columnOf)],
      rows.map((r) => [r[0]!, limitOf(r[0]!), ...r.slice(1)]),
    ),
    '',
  ];
}

function speedupSection(runs: BenchRecord[]): string[] {
  const rows = byRun(
    runs,
    (r) => r.tools,
    (t) => t.tool,
    (t) => `${times(t.indexBacked.speedup)} / ${times(t.indexBacked.speedupRaw)} / ${times(t.indexBacked.speedupCore)}`,
  );
  const geo = byRun(
    runs,
    (r) => r.geoMeans,
    (g) => `**all tools, ${g.messages}**`,
    (g) => `**${times(g.indexBacked)}** / ${times(g.raw)} / **${times(g.core)}**`,
  );
  const lat = byRun(
    runs,
    (r) => r.tools,
    (t) => t.tool,
    (t) => `${p5095(t.indexBacked)} (${p5095(t.helpdesk)})`,
  );
  const floors = byRun(
    runs,
    (r) => Object.entries(r.floors),
    ([engine]) => engine,
    ([, v]) => num(v),
  );
  return [
    "## searchdesk vs the help desk's SQL",
    '',
    "`npm run bench`: the help desk's own search statements (`bench/perf/helpdesk.ts`) on the same data, callers and indexes. Speed-up = help desk ÷ searchdesk, the geo-mean of the per-query medians' ratios, index-backed: through MCP (the SDK client) / MCP with a minimal client (one plain JSON-RPC POST) / core only (the core's statements beside the help desk's, statement against statement).",
    '',
    table(['Tool', ...runs.map(columnOf)], [...rows, ...geo]),
    '',
    "Latency through MCP, index-backed, p50 / p95 ms (the help desk's SQL p50 / p95 in brackets):",
    '',
    table(['Tool', ...runs.map(columnOf)], lat),
    '',
    "A message search no message matches, core only, median ms (each engine's floor: no search on it is faster):",
    '',
    table(['Engine', ...runs.map(columnOf)], floors),
    '',
  ];
}

function kindsSection(runs: BenchRecord[]): string[] {
  const rows = byRun(
    runs,
    (r) => r.kinds.filter((k) => !k.tool.startsWith('search_all')),
    (k) => `${k.tool} \u0001 ${k.kind}`,
    (k) => `${times(k.speedupCore)} (${times(k.worstCore)})`,
  );
  return [
    '## By kind of query',
    '',
    "`npm run bench`, index-backed, core only: help desk ÷ core, geo-mean of the kind's queries (its worst query in brackets). search_all's kinds are in the JSON files.",
    '',
    table(
      ['Tool', 'Kind', ...runs.map(columnOf)],
      rows.map((r) => split(r, 2)),
    ),
    '',
  ];
}

function variantSection(runs: BenchRecord[]): string[] {
  const rows = byRun(
    runs,
    (r) => r.defaultVariant,
    (d) => d.tool,
    (d, r) => {
      const speedup = r.tools.find((t) => t.tool === d.tool || t.tool === `${d.tool} (Postgres engine)`)?.default?.speedup;
      return `${p5095(d.default)} / ${num(d.default.max)} (${d.queries}) · ${times(speedup)}`;
    },
  );
  const geo = byRun(
    runs,
    (r) => r.geoMeans.filter((g) => g.default !== undefined),
    (g) => `**all tools, ${g.messages}**`,
    (g) => `**${times(g.default)}**`,
  );
  return [
    '## Default variant',
    '',
    "The account's `search_with_gin` off, through MCP: p50 / p95 / max ms (queries) · speed-up over the help desk's SQL (geo-mean). At L only the first queries of each tool run this way.",
    '',
    table(['Tool', ...runs.map(columnOf)], [...rows, ...geo]),
    '',
  ];
}

function serverSection(runs: BenchRecord[]): string[] {
  const level = (r: BenchRecord, f: (l: NonNullable<BenchRecord['throughput']>['levels'][number]) => string) =>
    r.throughput ? r.throughput.levels.map(f).join(' / ') : '–';
  const o = (r: BenchRecord) => r.overhead;
  const rows: Array<[string, (r: BenchRecord) => string]> = [
    [
      'throughput: messages engine, s per level',
      (r) => (r.throughput ? `${r.throughput.engine}, ${r.settings?.duration ?? '?'} s` : '–'),
    ],
    ['calls/s at concurrency 1 / 8 / 32', (r) => level(r, (l) => l.callsPerSecond.toFixed(1))],
    ['p95 ms at 1 / 8 / 32', (r) => level(r, (l) => num(l.p95))],
    ['peak RSS MB at 1 / 8 / 32 (idle)', (r) => `${level(r, (l) => num(l.peakRssMb))} (${num(r.throughput?.idleRssMb)})`],
    ["stdio cold start, median ms (bare `node -e ''`)", (r) => `${num(o(r)?.coldStartMedianMs)} (${num(o(r)?.bareNodeMs)})`],
    ['stdio cold start, peak RSS MB', (r) => num(o(r)?.coldStartPeakRssMb)],
    ['fixed cost per call, MCP / REST, ms', (r) => `${num(o(r)?.mcpFixedMs)} / ${num(o(r)?.restFixedMs)}`],
  ];
  const engines = byRun(
    runs,
    (r) => r.latency.filter((l) => l.tool === 'search_messages' && !l.phase.includes('per-column')),
    (l) => l.phase,
    (l) => `${p5095(l)} (direct ${p5095(l.direct)})`,
  );
  return [
    '## Server',
    '',
    '`npm run bench`: the mixed workload of all five tools, index-backed; `bench/overhead.js` for the start and the fixed cost.',
    '',
    table(
      ['', ...runs.map(columnOf)],
      rows.map(([label, f]) => [label, ...runs.map(f)]),
    ),
    '',
    'search_messages by engine through MCP, p50 / p95 ms (the direct path, no MCP, in brackets):',
    '',
    table(['Engine', ...runs.map(columnOf)], engines),
    '',
  ];
}

function layoutSection(runs: BenchRecord[]): string[] {
  const with_ = runs.filter((r) => r.contactLayouts?.length);
  if (with_.length === 0) return [];
  const rows = byRun(
    with_,
    (r) => r.contactLayouts ?? [],
    (c) => `${c.tool} \u0001 ${c.layout}`,
    (c) => `${p5095(c.searchdesk)} (${p5095(c.helpdesk)}) · ${times(c.speedup)}`,
  );
  return [
    '## Contact index layout',
    '',
    "Index-backed through MCP, p50 / p95 ms (the help desk's SQL in brackets) · speed-up, with the help desk's combined contacts trigram index and with one per column:",
    '',
    table(
      ['Tool', 'Contact indexes', ...with_.map(columnOf)],
      rows.map((r) => split(r, 2)),
    ),
    '',
  ];
}

function coreSection(runs: CoreRecord[]): string[] {
  if (runs.length === 0) return [];
  const tools = byRun(
    runs,
    (r) => r.tools,
    (t) => t.tool,
    (t) =>
      `${times(t.speedup)}${t.runs ? ` (runs ${t.runs.map(times).join(' ')})` : ''}${t.worst ? `, worst ${times(t.worst)}` : ''}` +
      `${t.coreP50Ms !== undefined ? `; core p50 ${num(t.coreP50Ms)} ms` : ''}${t.floorMs !== undefined ? `; floor ${num(t.floorMs)} ms` : ''}`,
  );
  const behind = new Set(
    runs.flatMap((r) =>
      r.tools.flatMap((t) => (t.kinds ?? []).filter((k) => (k.worst ?? 1) < 1).map((k) => `${t.tool} ${k.kind}`)),
    ),
  );
  const kinds = byRun(
    runs,
    (r) =>
      r.tools.flatMap((t) =>
        (t.kinds ?? []).filter((k) => behind.has(`${t.tool} ${k.kind}`)).map((k) => ({ ...k, tool: t.tool })),
      ),
    (k) => `${k.tool} \u0001 ${k.kind}`,
    (k) =>
      [
        k.speedup !== undefined ? `${times(k.speedup)} (${times(k.worst)})` : '',
        k.coreP50Ms !== undefined ? `core p50 ${num(k.coreP50Ms)} ms` : '',
      ]
        .filter(Boolean)
        .join('; '),
  );
  return [
    '## The core alone',
    '',
    "`npm run bench:core`: the core's search beside the help desk's statement, alternating, no server. Help desk ÷ core, geo-mean per tool; the core's p50 per query.",
    '',
    table(['Tool', ...runs.map(columnOf)], tools),
    '',
    ...(kinds.length
      ? [
          "The kinds of query with a query under ×1.0 in some run (geo-mean, worst in brackets; the core's median); every kind is in the JSON files:",
          '',
          table(
            ['Tool', 'Kind', ...runs.map(columnOf)],
            kinds.map((r) => split(r, 2)),
          ),
          '',
        ]
      : []),
  ];
}

const one = (v: number) => v.toFixed(1);
const tpair = (p: [number, number] | undefined) => (p ? `${one(p[0])} / ${one(p[1])}` : '–');

function triageSection(runs: TriageRecord[]): string[] {
  if (runs.length === 0) return [];
  const rows = byRun(
    runs,
    (r) => r.rows,
    (t) => `${t.role} \u0001 ${t.combination}`,
    (t) =>
      `${tpair(t.mcp)} · ${tpair(t.core)} · ${tpair(t.helpdesk)}${t.ratio !== undefined ? ` · ×${one(t.ratio)}` : ''}` +
      `${t.allCount !== undefined ? ` · ${t.allCount}` : ''}`,
  );
  return [
    '## Triage list',
    '',
    "`npm run bench:triage`: list_conversations and get_account, p50 / p95 ms through MCP · the core alone · the help desk's own statements (its counts and page) · help desk ÷ core (p50) · `all_count`.",
    '',
    table(
      ['Role', 'Combination', ...runs.map(columnOf)],
      rows.map((r) => split(r, 2)),
    ),
    '',
  ];
}

const HEADER = [
  '# searchdesk benchmark results',
  '',
  '<!-- Generated by `npm run bench:results` from bench/results/*.json and bench/DECISIONS.md: edit those, not this file. -->',
  '',
  'The latest figures of each bench, one column per scale and data shape, then the decisions they led to. `npm run bench`,',
  '`bench:core` and `bench:triage` write `bench/results/<tool>-<scale>-<shape>.json`; `npm run bench:results` renders this file',
  '(bench/README.md, "Results"). The hand-written session analyses this file held until 2acd74b are in git history:',
  '`git show 2acd74b:bench/RESULTS.md`.',
  '',
];

/** bench/RESULTS.md for these records and this decisions text. */
export function renderResults(records: readonly AnyRecord[], decisions: string): string {
  const runs = [...records].sort(runOrder);
  const bench = runs.filter((r): r is BenchRecord => r.tool === 'bench');
  const core = runs.filter((r): r is CoreRecord => r.tool === 'core');
  const triage = runs.filter((r): r is TriageRecord => r.tool === 'triage');
  const sections = [
    HEADER,
    runsSection(runs),
    ...(bench.length
      ? [
          targetsSection(bench),
          speedupSection(bench),
          kindsSection(bench),
          variantSection(bench),
          serverSection(bench),
          layoutSection(bench),
        ]
      : []),
    coreSection(core),
    triageSection(triage),
  ];
  return `${[...sections.flat(), decisions.trim()].join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
