/**
 * `npm run bench:rss`: the server's peak RSS at concurrency 32, with and without extra Node
 * options (default the ones it is deployed with, SERVER_NODE_OPTIONS), in alternating runs. Each run starts a server,
 * then calls the bench's mixed workload at concurrency 1, 8 and 32 (`--duration` seconds each,
 * as `npm run bench` does) and keeps the peak at 32 and its calls per second. The peak moves with
 * garbage collection by 20 MB or more from run to run, so one run of the bench cannot tell an
 * option's effect: this compares medians. `--era both` also alternates the clients' protocol era:
 * 2025 (the v2 client in its default negotiation, answered by searchdesk's own layer) and 2026-07-28 (pinned to
 * it, answered by @modelcontextprotocol/server). Never part of `npm test`; writes nothing.
 */
import { parseArgs } from 'node:util';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from './generator/org.js';
import { measureThroughput, type Clients } from './perf/measure.js';
import { cliEnv, connectHttp, MODERN_ERA, SERVER_NODE_OPTIONS, startServer } from './perf/server.js';
import { median } from './perf/stats.js';
import { TOOL_NAMES, type BenchQuery } from './perf/workload.js';
import { ACCOUNT_ID, log, STATEMENT_TIMEOUT_MS, type Args } from './run/args.js';
import { openBench, sampleWorkload } from './run/data.js';

const HELP = `Usage: npm run bench:rss -- [options]

  --scale M|L              Bench scale (default L)
  --database-url URL       Bench database (default postgres://postgres@127.0.0.1:5432/sd_bench_<scale>)
  --elasticsearch-url URL  Search messages with Elasticsearch (index sdbench_messages_<scale>), as the bench does
  --node-options TEXT      The options compared with none (default: the server's own, ${SERVER_NODE_OPTIONS})
  --runs N                 Runs of each, alternating (default 5)
  --duration S             Seconds at each concurrency (default 8)
  --era 2025|2026-07-28|both  The clients' protocol era (default 2025: the v2 client's default negotiation)
`;

async function main() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'L' },
      'database-url': { type: 'string' },
      'elasticsearch-url': { type: 'string' },
      'node-options': { type: 'string', default: SERVER_NODE_OPTIONS },
      runs: { type: 'string', default: '5' },
      duration: { type: 'string', default: '8' },
      era: { type: 'string', default: '2025' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void process.stdout.write(HELP);
  const scale = values.scale === 'M' ? 'M' : 'L';
  const args = {
    scale,
    databaseUrl: values['database-url'] ?? `postgres://postgres@127.0.0.1:5432/sd_bench_${scale.toLowerCase()}`,
    seed: 1,
    perTool: 40,
  } as Args;
  const bench = await openBench(args);
  let queries: BenchQuery[];
  try {
    const workload = await sampleWorkload(args, bench, []);
    // Interleaved as the bench's throughput runs are: every worker sees the mix.
    const byTool = TOOL_NAMES.map((t) => workload.byTool[t]);
    queries = [];
    for (let i = 0; byTool.some((list) => list[i]); i++) for (const list of byTool) if (list[i]) queries.push(list[i]!);
  } finally {
    await bench.close();
  }
  const es = values['elasticsearch-url'];
  const eras = values.era === 'both' ? ['2025', MODERN_ERA] : [values.era];
  const variants = eras.flatMap((era) => [
    { label: `${era}, no options`, nodeOptions: undefined, era },
    { label: `${era}, ${values['node-options']}`, nodeOptions: values['node-options'], era },
  ]);
  const seconds = Number(values.duration);
  const peaks = variants.map(() => [] as number[]);
  const rates = variants.map(() => [] as number[]);
  for (let run = 1; run <= Number(values.runs); run++) {
    for (const [v, variant] of variants.entries()) {
      const server = await startServer(
        cliEnv({
          DATABASE_URL: args.databaseUrl,
          SEARCHDESK_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
          ELASTICSEARCH_URL: es,
          ELASTICSEARCH_INDEX: es ? `sdbench_messages_${scale.toLowerCase()}` : undefined,
          NODE_OPTIONS: variant.nodeOptions,
        }),
      );
      const pool: Clients[] = [];
      try {
        for (let i = 0; i < 32; i++)
          pool.push({
            admin: await connectHttp(server.url, LARGE_ADMIN_TOKEN, variant.era),
            agent: await connectHttp(server.url, LARGE_AGENT_TOKEN, variant.era),
          });
        for (const concurrency of [1, 8])
          await measureThroughput(pool, ACCOUNT_ID, queries, { concurrency, seconds, pid: server.pid });
        const at32 = await measureThroughput(pool, ACCOUNT_ID, queries, { concurrency: 32, seconds, pid: server.pid });
        peaks[v]!.push(at32.peakRssMb);
        rates[v]!.push(at32.callsPerSecond);
        log(
          `run ${run}, ${variant.label}: peak ${at32.peakRssMb.toFixed(1)} MB at 32, ${at32.callsPerSecond.toFixed(0)} calls/s, ${at32.errors} errors`,
        );
      } finally {
        for (const clients of pool) for (const client of Object.values(clients)) await client.close().catch(() => undefined);
        await server.stop();
      }
    }
  }
  process.stdout.write('\n| Era, Node options | Peak RSS at 32, median (range) | Calls/s, median |\n| --- | --- | --- |\n');
  for (const [v, variant] of variants.entries()) {
    const p = peaks[v]!;
    process.stdout.write(
      `| ${variant.label} | ${median(p).toFixed(1)} MB (${Math.min(...p).toFixed(1)}–${Math.max(...p).toFixed(1)}) | ${median(rates[v]!).toFixed(0)} |\n`,
    );
  }
}

main().catch((err: unknown) => {
  log(`bench:rss failed: ${(err as Error).message}`);
  process.exitCode = 1;
});
