#!/usr/bin/env node
/**
 * `searchdesk` — thin: pick the command, run it, exit with an explicit code (0 done, 1 unexpected
 * failure, 2 bad usage or configuration). Commands live in src/commands/.
 */
import { ConfigError, processEnv } from './config.js';
import { EXIT_FAILURE, EXIT_USAGE, printHelp, UsageError, type Command } from './commands/shared.js';

const MAIN_HELP = `Usage: searchdesk [command] [options]

Search one help-desk account's contacts, conversations, messages and articles (read-only).

Commands:
  serve        Run the MCP server (stdio, the default) or the HTTP server (MCP + REST)
  index        Build or update the Elasticsearch/OpenSearch message index from Postgres
  db           Admin: create searchdesk's schema (db setup) or its indexes (db indexes)
  demo         Show the embedded demo help desk's accounts and tokens

Options:
  -h, --help     Show help (also per command: searchdesk serve --help)
  -v, --version  Show the version

Configuration comes from the environment (DATABASE_URL, SEARCHDESK_ACCESS_TOKEN, …; see README).
Without DATABASE_URL, searchdesk runs on an embedded demo help desk.
`;

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  index: async () => (await import('./commands/index-command.js')).indexCommand,
  db: async () => (await import('./commands/db.js')).dbCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
};

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = processEnv()): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') return printHelp(`${(await import('./app.js')).readVersion()}\n`);
  if (first === '--help' || first === '-h') return printHelp(MAIN_HELP);
  // No command, or options only: `serve` (stdio by default), so an MCP client can run `npx searchdesk`.
  if (first === undefined || first.startsWith('-')) return (await COMMANDS.serve!())(argv, env);
  const load = COMMANDS[first];
  if (!load) throw new UsageError(`unknown command "${first}" (try searchdesk --help)`);
  return (await load())(rest, env);
}

function exitCodeOf(err: unknown): number {
  if (err instanceof ConfigError || err instanceof UsageError) {
    process.stderr.write(`searchdesk: ${err.message}\n`);
    return EXIT_USAGE;
  }
  // parseArgs reports unknown or malformed options with these codes.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`searchdesk: ${(err as Error).message}\n`);
    return EXIT_USAGE;
  }
  process.stderr.write(`searchdesk: ${(err as Error)?.message ?? String(err)}\n`);
  return EXIT_FAILURE;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(exitCodeOf(err)),
);
