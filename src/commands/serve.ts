/** `searchdesk serve [--stdio | --http]`: the MCP server over stdio (default) or the HTTP server. */
import { parseArgs } from 'node:util';
import type { App } from '../app.js';
import { loadConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { demoBanner } from './demo.js';
import { EXIT_OK, printHelp, UsageError, untilSignal, type Command } from './shared.js';

export const SERVE_HELP = `Usage: searchdesk serve [--stdio | --http [--host HOST] [--port PORT]]

  --stdio        MCP over stdin/stdout (default). Caller: SEARCHDESK_ACCESS_TOKEN
                 (on the embedded demo database without a token: the demo administrator).
  --http         HTTP server: MCP at POST /mcp, REST at /api/v1/…, /healthz, /readyz, /metrics
  --host HOST    Interface to bind (overrides HOST; default 127.0.0.1)
  --port PORT    Port to listen on (overrides PORT; default 3000; 0 = any free port)
  -h, --help     Show this help
`;

/** On the embedded demo database, stdio without a token acts as the demo administrator. */
function demoToken(app: App): string | undefined {
  return app.demo?.users.find((u) => u.role === 'administrator')?.token;
}

async function serveStdio(app: App, logger: Logger): Promise<void> {
  const [{ startupToken }, { withAccessCache }] = await Promise.all([
    import('../mcp/stdio-caller.js'),
    import('../search/core.js'),
  ]);
  const served: App = { ...app, deps: withAccessCache(app.deps) };
  // The token check talks to Postgres while the MCP SDK loads; its outcome is awaited below.
  const token = startupToken({ app: served, logger, defaultToken: demoToken(app) });
  token.catch(() => undefined);
  const { startStdioServer } = await import('../mcp/stdio.js');
  const stdio = await startStdioServer({ app: served, logger, token });
  // The embedded database starts once the server listens: the handshake's lines come first.
  setImmediate(() => app.startDatabase());
  await Promise.race([stdio.closed, untilSignal()]);
  await stdio.close();
}

async function serveHttp(app: App, logger: Logger): Promise<void> {
  const { startHttpServer } = await import('../http/server.js');
  const http = await startHttpServer(app, { logger });
  if (app.demo) process.stderr.write(demoBanner(app.demo, app.config, http.url));
  const signal = await untilSignal();
  logger.info({ event: 'shutdown', signal }, 'shutting down');
  await http.close();
}

/** `serve`: flags override the environment (they are merged into the env given to loadConfig). */
export const serveCommand: Command = async (args, env) => {
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
  const [{ createLogger, flushLogger }, { createApp }] = await Promise.all([import('../logger.js'), import('../app.js')]);
  const logger = createLogger(config.logLevel);
  // Over stdio the embedded database starts in the background: initialize and tools/list need no
  // data, and the first tool call waits for it (src/db/deferred.ts). HTTP waits, as /readyz and
  // the demo banner say the server is ready to search.
  const app = await createApp(config, logger, { background: !values.http });
  try {
    await (values.http ? serveHttp(app, logger) : serveStdio(app, logger));
  } finally {
    await app.close();
    flushLogger(logger);
  }
  return EXIT_OK;
};
