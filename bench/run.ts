/**
 * `npm run bench -- --scale M|L [options]`: measures searchdesk through its real MCP Streamable HTTP
 * surface (a spawned `node dist/cli.js serve --http --port 0`) on a bench database made by
 * `npm run bench:data`, with baselines measured in the same run: the same query straight to
 * Postgres/Elasticsearch, the help desk's own SQL for the same search, the default vs the
 * index-backed (search_with_gin) variant, and the message engines side by side. Writes a Markdown
 * section per scale to bench/RESULTS.md and prints it. See bench/README.md ("Performance benchmark").
 *
 * The phases live in bench/run/: args (command line), data (flags, workload, indexes), runs (the
 * measurements), targets (limits and plans of misses), report (the Markdown).
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HELP, log, parse, type Args } from './run/args.js';
import { load, machineInfo, messageIndexes, openBench, preparePostgresIndexes, sampleWorkload } from './run/data.js';
import { peakRssOf, readSection, report, writeSection } from './run/report.js';
import type { Results } from './run/results.js';
import { measureAll } from './run/runs.js';
import { triagePhase } from './run/triage.js';
import { savePlans } from './run/targets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
    const triage = await triagePhase(args, notes);
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
      previousPeakRssMb: peakRssOf(readSection(resolve(ROOT, args.out), args.scale)),
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
  const results = await run(args);
  if (!results) return 0;
  const section = report(results);
  const file = resolve(ROOT, args.out);
  writeSection(file, args.scale, section);
  process.stdout.write(`${section}\n`);
  log(`report written to ${relative(ROOT, file)}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
