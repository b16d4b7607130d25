/**
 * `npm run bench -- --scale M|L [options]`: measures searchdesk through its real MCP Streamable HTTP
 * surface (a spawned `node dist/cli.js serve --http --port 0`) on a bench database made by
 * `npm run bench:data`, with baselines measured in the same run: the same query straight to
 * Postgres/Elasticsearch, the help desk's own SQL for the same search, the default vs the
 * index-backed (search_with_gin) variant, and the message engines side by side. Prints a Markdown
 * report, writes the run's figures to bench/results/bench-<scale>-<shape>.json and renders
 * bench/RESULTS.md from the records (`--out FILE`: a trial run, the report to FILE and nothing
 * else written). See bench/README.md ("Performance benchmark", "Results").
 *
 * The phases live in bench/run/: args (command line), data (flags, workload, indexes), runs (the
 * measurements), targets (limits and plans of misses), report (the Markdown), record (the JSON).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentCommit, loadNow, RESULTS_DIR, writeRecord } from './record/io.js';
import { recordKey, shapeOf, type BenchRecord, type Load } from './record/types.js';
import { updateResults } from './results.js';
import { HELP, log, parse, type Args } from './run/args.js';
import { load, machineInfo, messageIndexes, openBench, preparePostgresIndexes, sampleWorkload } from './run/data.js';
import { benchRecord } from './run/record.js';
import { writeTriageRecord } from './record/triage.js';
import { triageRecordRows } from './perf/triage.js';
import { peakRssOf, readSection, report, writeSection } from './run/report.js';
import type { Results } from './run/results.js';
import { measureAll } from './run/runs.js';
import { triagePhase } from './run/triage.js';
import { savePlans } from './run/targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Peak RSS at concurrency 32 of this scale and shape's previous run: its record, or a trial run's report. */
function previousPeakRss(args: Args): number | undefined {
  if (args.out) return peakRssOf(readSection(resolve(ROOT, args.out), args.scale));
  const file = join(RESULTS_DIR, `${recordKey({ tool: 'bench', scale: args.scale, shape: shapeOf(args) })}.json`);
  if (!existsSync(file)) return undefined;
  const before = JSON.parse(readFileSync(file, 'utf8')) as BenchRecord;
  return before.throughput?.levels.find((l) => l.concurrency === 32)?.peakRssMb;
}

async function run(args: Args): Promise<Results | undefined> {
  const startedAt = new Date();
  const t0 = performance.now();
  const notes: string[] = [];
  const bench = await openBench(args);
  try {
    const machine = await machineInfo(args, bench.direct);
    const workload = await sampleWorkload(args, bench, notes);
    const indexes = await messageIndexes(args, bench);
    if (args.indexesOnly) {
      for (const [name, status] of Object.entries(indexes)) log(`${name}: ${JSON.stringify(status)}`);
      return undefined;
    }
    const pgIndexes = await preparePostgresIndexes(args, bench);
    const measured = await measureAll(args, bench, workload, pgIndexes, notes);
    const triage = args.tools ? undefined : await triagePhase(args, notes);
    machine['Load average at end (1/5/15 min)'] = load();
    const results: Results = {
      args,
      startedAt,
      seconds: (performance.now() - t0) / 1000,
      machine,
      workload,
      indexes,
      pgIndexes,
      ...measured,
      ...(triage && { triage }),
      previousPeakRssMb: previousPeakRss(args),
      plans: {},
      notes,
    };
    log('plans of the misses…');
    await savePlans(results, bench.direct);
    return results;
  } finally {
    await bench.close();
  }
}

async function main(): Promise<number> {
  let args: Args | undefined;
  try {
    args = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (!args) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    process.stderr.write('dist/cli.js is missing: run `npm run build` first\n');
    return 2;
  }
  const commit = currentCommit();
  const loads: Load = { start: loadNow() };
  const results = await run(args);
  if (!results) return 0;
  loads.end = loadNow();
  const section = report(results);
  process.stdout.write(`${section}\n`);
  if (args.out) {
    const file = resolve(ROOT, args.out);
    writeSection(file, args.scale, section);
    log(`trial run: report written to ${relative(ROOT, file)}; bench/results left as it is`);
  } else {
    log(`record written to ${relative(ROOT, writeRecord(benchRecord(results, commit, loads)))}`);
    if (results.triage) {
      const start = { date: results.startedAt.toISOString(), commit, load: loads };
      const rows = triageRecordRows(results.triage.results);
      log(`record written to ${relative(ROOT, writeTriageRecord(args, start, process.argv.slice(2), rows, 'npm run bench'))}`);
    }
    log(`${updateResults()} rendered`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
