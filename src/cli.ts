#!/usr/bin/env node
/**
 * `searchdesk` — thin: parse arguments, build the config and the app, run one command, exit with
 * an explicit code (0 done, 1 unexpected failure, 2 bad usage or configuration).
 * Commands to come: `index`, `demo`, `db setup`, `db indexes`.
 */
import { parseArgs } from 'node:util';
import type { App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import type { Logger } from './logger.js';

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

class UsageError extends Error {}

const MAIN_HELP = `Usage: searchdesk [command] [options]

Search one help-desk account's contacts, conversations, messages and articles (read-only).

Commands:
  serve        Run the MCP server (stdio, the default) or the HTTP server (MCP + REST)

Options:
  -h, --help     Show help (also per command: searchdesk serve --help)
  -v, --version  Show the version

Configuration comes from the environment (DATABASE_URL, SEARCHDESK_ACCESS_TOKEN, …; see README).
`;

const SERVE_HELP = `Usage: searchdesk serve [--stdio | --http [--host HOST] [--port PORT]]

  --stdio        MCP over stdin/stdout (default). Caller: SEARCHDESK_ACCESS_TOKEN.
  --http         HTTP server: MCP at POST /mcp, REST at /api/v1/…, /healthz, /readyz, /metrics
  --host HOST    Interface to bind (overrides HOST; default 127.0.0.1)
  --port PORT    Port to listen on (overrides PORT; default 3000; 0 = any free port)
  -h, --help     Show this help
`;

/** Resolves on the first SIGINT/SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

// Surfaces are imported when a command runs, so --help and --version answer at once.
async function serveStdio(app: App, logger: Logger): Promise<void> {
  const { startStdioServer } = await import('./mcp/stdio.js');
  const stdio = await startStdioServer({ app, logger });
  await Promise.race([stdio.closed, untilSignal()]);
  await stdio.close();
}

async function serveHttp(app: App, logger: Logger): Promise<void> {
  const { startHttpServer } = await import('./http/server.js');
  const http = await startHttpServer(app, { logger });
  const signal = await untilSignal();
  logger.info({ event: 'shutdown', signal }, 'shutting down');
  await http.close();
}

/** `serve`: flags override the environment (they are merged into the env given to loadConfig). */
async function serveCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return printHelp(SERVE_HELP);
  if (values.stdio && values.http) throw new UsageError('choose one of --stdio and --http');
  if (!values.http && (values.host !== undefined || values.port !== undefined))
    throw new UsageError('--host and --port need --http');
  const config = loadConfig({
    ...env,
    ...(values.host !== undefined && { HOST: values.host }),
    ...(values.port !== undefined && { PORT: values.port }),
  });
  const [{ createLogger }, { createApp }] = await Promise.all([import('./logger.js'), import('./app.js')]);
  const logger = createLogger(config.logLevel);
  const app = await createApp(config, logger);
  try {
    await (values.http ? serveHttp(app, logger) : serveStdio(app, logger));
  } finally {
    await app.close();
  }
  return EXIT_OK;
}

const COMMANDS: Record<string, (args: string[], env: NodeJS.ProcessEnv) => Promise<number>> = {
  serve: serveCommand,
};

function printHelp(text: string): number {
  process.stdout.write(text);
  return EXIT_OK;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') return printHelp(`${(await import('./app.js')).readVersion()}\n`);
  if (first === '--help' || first === '-h') return printHelp(MAIN_HELP);
  // No command, or options only: `serve` (stdio by default).
  if (first === undefined || first.startsWith('-')) return serveCommand(argv, env);
  const command = COMMANDS[first];
  if (!command) throw new UsageError(`unknown command "${first}" (try searchdesk --help)`);
  return command(rest, env);
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
  process.stderr.write(`searchdesk: unexpected failure: ${(err as Error)?.message ?? String(err)}\n`);
  return EXIT_FAILURE;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => process.exit(exitCodeOf(err)),
);
