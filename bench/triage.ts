/**
 * `npm run bench:triage`: list_conversations and get_account through MCP over HTTP (the built
 * server, `node dist/cli.js serve --http`, as `npm run bench` starts it; one SDK client per role,
 * warm, concurrency 1) and through searchdesk's core alone (the request pipeline, records and
 * counts included, on the server's own Db), beside the help desk's own statements for the same
 * list as its ConversationFinder issues them (perf/triage.ts). Each combination alternates the
 * three, after one warm-up, and prints medians and p95, and the help desk's median over the
 * core's. `npm run bench` runs the same measurements as one of its phases. Records them
 * (bench/results/triage-<scale>-<shape>.json, then bench/RESULTS.md) unless `--no-record`.
 */
import { parseArgs } from 'node:util';
import { findDirectoryAccount, measureTriage, triageRecordRows, triageTable } from './perf/triage.js';
import { serverCliEnv, startServer } from './perf/server.js';
import { triageStart, writeTriageRecord } from './record/triage.js';
import { updateResults } from './results.js';

const HELP = `Usage: npm run bench:triage -- --database-url URL [--reps N] [--account ID] [--admin-token T] [--agent-token T]
         [--busy-label TITLE] [--rare-labels A,B] [--no-mcp] [--scale L] [--no-record]
Defaults fit bench/triage-standin.sql (tok1, tok2, label-1, label-2,label-3); the generator's L:
  --admin-token bench-admin-token --agent-token bench-agent-token --busy-label billing --rare-labels downgrade,upgrade
get_account is measured in the bench data's directory account too when the database has it
(bench:data --only directory).
`;

const OPTIONS = {
  'database-url': { type: 'string' },
  reps: { type: 'string', default: '9' },
  account: { type: 'string', default: '1' },
  'admin-token': { type: 'string', default: 'tok1' },
  'agent-token': { type: 'string', default: 'tok2' },
  'busy-label': { type: 'string', default: 'label-1' },
  'rare-labels': { type: 'string', default: 'label-2,label-3' },
  'no-mcp': { type: 'boolean', default: false },
  scale: { type: 'string', default: 'L' },
  'no-record': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: OPTIONS });
  const url = values['database-url'];
  if (values.help || !url) {
    process.stdout.write(HELP);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const start = triageStart();
  const directory = await findDirectoryAccount(url);
  const server = values['no-mcp'] ? undefined : await startServer(serverCliEnv({ DATABASE_URL: url }));
  try {
    const results = await measureTriage({
      databaseUrl: url,
      serverUrl: server?.url,
      reps: Number(values.reps),
      accountId: Number(values.account),
      adminToken: values['admin-token'],
      agentToken: values['agent-token'],
      busyLabel: values['busy-label'],
      rareLabels: values['rare-labels'].split(','),
      ...(directory && { directory }),
    });
    process.stdout.write(`${triageTable(results).join('\n')}\n`);
    if (!values['no-record'])
      process.stdout.write(
        `record written to ${writeTriageRecord(values, start, process.argv.slice(2), triageRecordRows(results))}; ${updateResults()} rendered\n`,
      );
  } finally {
    await server?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
