/** `searchdesk demo`, and the banner `serve` prints on the embedded demo database. */
import type { Config } from '../config.js';
import type { DemoInfo } from '../db/demo-data.js';
import { EXIT_OK, printHelp, type Command } from './shared.js';
import { parseArgs } from 'node:util';

const DEMO_HELP = `Usage: searchdesk demo

Prints the embedded demo help desk's accounts and access tokens (creating it on first use in
SEARCHDESK_DATA_DIR). The demo is what searchdesk serves when DATABASE_URL is not set.
`;

/** The lines that tell a newcomer how to try the demo. `url` is the HTTP server's, when there is one. */
export function demoBanner(demo: DemoInfo, config: Config, url?: string): string {
  const admin = demo.users.find((u) => u.role === 'administrator') ?? demo.users[0];
  const base = url ?? `http://${config.host}:${config.port}`;
  const lines = [
    '',
    `searchdesk is running on its embedded demo help desk (${config.dataDir}).`,
    `Accounts: ${demo.accounts.map((a) => `${a.id} ${a.name}`).join(', ')}`,
    'Access tokens:',
    ...demo.users.map(
      (u) =>
        `  ${u.token.padEnd(20)} ${u.name}, ${u.role} of account ${u.accountId} — inboxes: ${u.inboxes.map((i) => i.name).join(', ')}`,
    ),
    `  ${demo.botToken.padEnd(20)} a bot's token (refused: bots may not search)`,
  ];
  if (url && admin) {
    lines.push(
      `MCP (Streamable HTTP): ${base}/mcp with header "api_access_token: ${admin.token}"`,
      `Try: curl -s -H 'api_access_token: ${admin.token}' '${base}/api/v1/accounts/${admin.accountId}/search?q=refund'`,
    );
  }
  lines.push('Set DATABASE_URL to search your own help desk instead.', '');
  return lines.join('\n');
}

export const demoCommand: Command = async (args, env) => {
  const { values } = parseArgs({
    args,
    options: { help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return printHelp(DEMO_HELP);
  const { loadConfig } = await import('../config.js');
  const config = loadConfig({ ...env, DATABASE_URL: undefined });
  const { createLogger } = await import('../logger.js');
  const { openDatabase } = await import('../app.js');
  const { db, demo } = await openDatabase(config, createLogger(config.logLevel));
  await db.close();
  if (demo) process.stdout.write(demoBanner(demo, config));
  return EXIT_OK;
};
