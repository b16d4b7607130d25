/** `searchdesk db setup | db indexes`: the only writes searchdesk makes to Postgres. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { EXIT_OK, printHelp, UsageError, type Command } from './shared.js';

const DB_HELP = `Usage: searchdesk db <setup | indexes>

  setup     Create searchdesk's own schema (tables of the help desk's data model) in DATABASE_URL,
            for a standalone install. Idempotent; never needed on a help desk's own database.
  indexes   Create the searchdesk_ indexes the fast search variants and \`index --follow\` use,
            CONCURRENTLY (no write lock) and only where missing, and the function through which
            a read-only role reads the word index's statistics (GRANT EXECUTE on it: README).
            Safe to re-run on production.

Both need a DATABASE_URL whose role may create tables or indexes.
`;

export const dbCommand: Command = async (args, env) => {
  const { values, positionals } = parseArgs({
    args,
    options: { help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: true,
  });
  if (values.help || positionals.length === 0) return printHelp(DB_HELP);
  const [action, ...rest] = positionals;
  if (rest.length > 0 || (action !== 'setup' && action !== 'indexes'))
    throw new UsageError(`unknown db command "${positionals.join(' ')}" (setup or indexes)`);
  const config = loadConfig(env);
  if (config.databaseUrl === undefined)
    throw new ConfigError(`db ${action} needs DATABASE_URL (the embedded demo database is set up on its own)`);
  const [{ createLogger }, { openDatabase }, admin] = await Promise.all([
    import('../logger.js'),
    import('../app.js'),
    import('../db/admin.js'),
  ]);
  const logger = createLogger(config.logLevel);
  const { db } = await openDatabase(config, logger, { readOnly: false, statementTimeoutMs: 0 });
  try {
    if (action === 'setup') {
      await admin.setupSchema(db);
      process.stderr.write('schema ready\n');
    } else {
      for (const r of await admin.createSearchIndexes(db, logger)) process.stderr.write(`${r.name}: ${r.action}\n`);
    }
  } finally {
    await db.close();
  }
  return EXIT_OK;
};
