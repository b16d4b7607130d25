/**
 * `npm run bench:core`: searchdesk's core against the help desk's own SQL, query by query, with no
 * server — the quick loop for working on a plan. Samples the same workload as `npm run bench`, puts
 * the same index layout in place (searchdesk's `db indexes`, the help desk's combined contact index),
 * then for each query alternates the help desk's statement with the core's search (strategy choice
 * and record reads included, on sessions set up as the server's) and prints the medians, the
 * speed-up (help desk ÷ core) and the geo-mean per tool and per kind of query. The run's figures go to
 * bench/results/core-<scale>-<shape>-<variant>-<engine>.json (its tools replaced) and bench/RESULTS.md
 * is rendered again, unless `--filter`, `--disable` or `--no-record`.
 */
import { parseArgs } from 'node:util';
import { ARTICLE_STRATEGIES } from '../src/search/articles.js';
import { CONTACT_PLAN } from '../src/search/contacts.js';
import { CONVERSATION_STRATEGIES } from '../src/search/conversations.js';
import { MESSAGE_STRATEGIES } from '../src/search/messages/postgres/strategies.js';
import { isKnob } from '../src/search/plan/costs.js';
import { PLAN_ONCE } from '../src/search/plan/executor.js';
import {
  elasticsearchEngine,
  EXPLAIN,
  explainPlan,
  postgresEngine,
  recordSql,
  statementTime,
  traceLines,
  type DirectEngine,
} from './perf/direct.js';
import { helpdeskSql, runHelpdesk } from './perf/helpdesk.js';
import { TOOL_NAMES, type ToolName } from './perf/workload.js';
import { messageFloor, warmEngine } from './perf/measure.js';
import { median } from './perf/stats.js';
import { coreRecord, type CoreToolRun } from './record/core.js';
import { loadNow, writeRecord } from './record/io.js';
import { updateResults } from './results.js';
import { describeData, readData } from './generator/shape.js';
import { log, redact, type Args } from './run/args.js';
import { shapeOf } from './record/types.js';
import { openBench, preparePostgresIndexes, sampleWorkload, setGin } from './run/data.js';

const HELP = `Usage: npm run bench:core -- --scale S|M|L [options]

  --database-url URL       Bench database (default: postgres://postgres@127.0.0.1:5432/sd_bench_<scale>)
  --tools LIST             Comma-separated tools (default: contacts,conversations,messages,articles)
  --elasticsearch-url URL  Messages through Elasticsearch (alias sdbench_messages_<scale>) instead of the Postgres engine
  --per-tool N             Sampled queries per tool (default 40)
  --reps N                 Alternating runs per query after one warm-up (default 5)
  --default                The default variant (search_with_gin off) instead of the index-backed one
  --filter TEXT            Only queries whose kind or arguments contain TEXT (nothing recorded)
  --no-record              Print only: leave bench/results/ and bench/RESULTS.md as they are
  --disable LIST           Strategies and knobs the core's plans run without (the ablation; docs/plans.md):
                           e.g. contacts.window,contacts.fetchCost,plan.once (nothing recorded)
  --no-helpdesk            Not the help desk's SQL: the core once a query (with BENCH_SQL, the statements an
                           ablation changes), then --reps timed runs of it alone, its medians and their geo-mean in
                           ms: quick at L, where the help desk's statements take seconds (nothing recorded)
`;

const short = (t: ToolName) => t.replace('search_', '');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string' },
      'database-url': { type: 'string' },
      tools: { type: 'string', default: 'contacts,conversations,messages,articles' },
      'elasticsearch-url': { type: 'string' },
      'per-tool': { type: 'string', default: '40' },
      reps: { type: 'string', default: '5' },
      default: { type: 'boolean', default: false },
      filter: { type: 'string' },
      'no-record': { type: 'boolean', default: false },
      disable: { type: 'string' },
      'no-helpdesk': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const scale = values.scale;
  if (values.help || (scale !== 'S' && scale !== 'M' && scale !== 'L')) {
    process.stdout.write(HELP);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const tools = values.tools.split(',').map((t) => `search_${t.trim()}` as ToolName);
  for (const t of tools) if (!TOOL_NAMES.includes(t)) throw new Error(`unknown tool ${short(t)}`);
  const args = {
    scale,
    databaseUrl: values['database-url'] ?? `postgres://postgres@127.0.0.1:5432/sd_bench_${scale.toLowerCase()}`,
    seed: 1,
    perTool: Number(values['per-tool']),
  } as Args;
  const reps = Number(values.reps);
  const gin = !values.default;
  const disabled = disabledNames(values.disable);

  const started = { date: new Date().toISOString(), load: { start: loadNow() } };
  const recorded: CoreToolRun[] = [];
  const bench = await openBench(args);
  let engine: DirectEngine | undefined;
  try {
    process.stdout.write(`== data: scale ${scale}, shape ${describeData(await readData(bench.direct.pool))}\n`);
    const workload = await sampleWorkload(args, bench, []);
    await preparePostgresIndexes(args, bench);
    await setGin(bench.direct, gin);
    const { direct } = bench;
    if (disabled.size > 0) {
      direct.plan = { disabled };
      process.stdout.write(`disabled: ${[...disabled].join(', ')}\n`);
    }
    engine = values['elasticsearch-url']
      ? elasticsearchEngine(values['elasticsearch-url'], `sdbench_messages_${scale.toLowerCase()}`)
      : postgresEngine(direct);
    const messageEngine = engine;
    if (tools.includes('search_messages')) await warmEngine(direct, workload.byTool.search_messages, messageEngine);
    const rows: string[] = [];
    // Per kind: help desk ÷ core, and help desk ÷ the core's statements alone (its JavaScript left out).
    const byKind = new Map<string, { core: number[]; sql: number[] }>();
    for (const tool of tools) {
      const speedups: number[] = [];
      const coreMedians: number[] = [];
      const run: CoreToolRun = { tool, queries: [] };
      recorded.push(run);
      for (const q of workload.byTool[tool]) {
        if (values.filter && !`${q.kind} ${JSON.stringify(q.args)}`.includes(values.filter)) continue;
        const access = direct.accessOf(q.role);
        const statements = helpdeskSql(access, q, Date.now());
        for (const s of statements) recordSql(`helpdesk_${s.part}`, s);
        if (EXPLAIN)
          for (const s of statements)
            process.stderr.write(`  [help desk ${s.part}]\n${traceLines(await explainPlan(direct.helpdeskPool, s))}`);
        const core: number[] = [];
        const sql: number[] = [];
        const runCore = async () => {
          const before = statementTime.ms;
          core.push(await direct.run(q, { gin, engine: messageEngine }));
          sql.push(statementTime.ms - before);
        };
        if (values['no-helpdesk']) {
          // One warm-up run (BENCH_SQL records it), then --reps timed runs of the core alone.
          await direct.run(q, { gin, engine: messageEngine });
          if (reps === 0) continue;
          for (let i = 0; i < reps; i++) await runCore();
          coreMedians.push(median(core));
          process.stdout.write(
            `${short(tool).padEnd(13)} ${q.role.padEnd(5)} ${JSON.stringify(q.args).padEnd(52)} core ${median(core).toFixed(2).padStart(7)} (sql ${median(sql).toFixed(2).padStart(7)})\n`,
          );
          continue;
        }
        await runHelpdesk(direct.helpdeskPool, access, q);
        await direct.run(q, { gin, engine: messageEngine });
        const hd: number[] = [];
        for (let i = 0; i < reps; i++) {
          if (i % 2 === 0) {
            hd.push(await runHelpdesk(direct.helpdeskPool, access, q));
            await runCore();
          } else {
            await runCore();
            hd.push(await runHelpdesk(direct.helpdeskPool, access, q));
          }
        }
        const s = median(hd) / median(core);
        speedups.push(s);
        const kind = `${short(tool)}: ${q.kind}`;
        const kindRatios = byKind.get(kind) ?? { core: [], sql: [] };
        kindRatios.core.push(s);
        kindRatios.sql.push(median(hd) / median(sql));
        byKind.set(kind, kindRatios);
        run.queries.push({ kind: q.kind, speedup: s, speedupSql: median(hd) / median(sql), coreMs: median(core) });
        rows.push(
          `${short(tool).padEnd(13)} ${q.role.padEnd(5)} ${JSON.stringify(q.args).padEnd(52)} hd ${median(hd).toFixed(2).padStart(8)}  core ${median(core).toFixed(2).padStart(7)} (sql ${median(sql).toFixed(2).padStart(7)})  ×${s.toFixed(2)}`,
        );
        process.stdout.write(`${rows[rows.length - 1]}\n`);
      }
      if (coreMedians.length)
        process.stdout.write(`== ${short(tool)}: core alone, geo-mean of the medians ${geo(coreMedians).toFixed(2)} ms\n`);
      if (speedups.length)
        process.stdout.write(
          `== ${short(tool)}: geo-mean ×${geo(speedups).toFixed(2)}, worst ×${Math.min(...speedups).toFixed(2)}\n`,
        );
      if (tool === 'search_messages') {
        run.floorMs = await messageFloor(direct, messageEngine);
        process.stdout.write(
          `== messages: a search no message matches takes ${run.floorMs.toFixed(2)} ms on the ${messageEngine.kind} engine (its floor)\n`,
        );
      }
    }
    process.stdout.write("\nBy kind (geo-mean, worst; then the same against the core's statements alone):\n");
    for (const [kind, r] of byKind)
      process.stdout.write(
        `  ${kind.padEnd(50)} ×${geo(r.core).toFixed(2)}  ×${Math.min(...r.core).toFixed(2)}   statements ×${geo(r.sql).toFixed(2)}  ×${Math.min(...r.sql).toFixed(2)}\n`,
      );
    if (!values.filter && !values['no-record'] && !values['no-helpdesk'] && disabled.size === 0) {
      const record = coreRecord(
        {
          ...started,
          scale,
          shape: shapeOf(args),
          variant: gin ? 'index-backed' : 'default',
          engine: values['elasticsearch-url'] ? 'Elasticsearch' : 'Postgres engine',
          database: redact(args.databaseUrl),
          command: `npm run bench:core -- ${process.argv.slice(2).join(' ')}`,
          reps,
        },
        recorded,
      );
      log(`record written to ${writeRecord(record)}; ${updateResults()} rendered`);
    }
  } finally {
    await engine?.close();
    await bench.close();
  }
}

/**
 * The names of --disable: knobs (costs.ts), `plan.once`, or strategies (`resource.name`, as the
 * plans name them: a strategy no plan has disables nothing, so each is checked against the plans
 * that exist).
 */
function disabledNames(list: string | undefined): ReadonlySet<string> {
  const names = (list ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const plans = [CONTACT_PLAN, CONVERSATION_STRATEGIES, ARTICLE_STRATEGIES, MESSAGE_STRATEGIES];
  const strategies = new Set(plans.flatMap((plan) => plan.map((s) => s.name)));
  for (const n of names)
    if (!isKnob(n) && n !== PLAN_ONCE && !strategies.has(n))
      throw new Error(`--disable: ${n} is neither a knob (src/search/plan/costs.ts) nor a strategy`);
  return new Set(names);
}

const geo = (xs: number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

main().catch((err: unknown) => {
  log(`bench:core failed: ${(err as Error).message}`);
  process.exitCode = 1;
});
