/**
 * The triage phase of `npm run bench` (issue 48): list_conversations and get_account through MCP
 * over HTTP, through the core alone and, for the list, beside the help desk's own statements
 * (perf/triage.ts, the measurements of `npm run bench:triage`), on a server of its own. The busy
 * label is the large account's most used one, the rare ones the two in the middle of its labels
 * by use; get_account is measured in the directory account too when the data has it.
 */
import pg from 'pg';
import { LARGE_ADMIN_TOKEN, LARGE_AGENT_TOKEN } from '../generator/org.js';
import { serverCliEnv, startServer } from '../perf/server.js';
import { findDirectoryAccount, measureTriage, type TriageResults } from '../perf/triage.js';
import { ACCOUNT_ID, log, serverDatabaseUrl, STATEMENT_TIMEOUT_MS, type Args } from './args.js';

/** Measured calls per combination and side (the p95 of 11 is the slowest but one). */
export const TRIAGE_REPS = 11;

export interface TriagePhase {
  results: TriageResults;
  busyLabel: string;
  rareLabels: string[];
  reps: number;
  /** The directory account get_account was measured in, when the data has one. */
  directoryAccount?: number;
}

/** The account's labels by use (their tags' counters), most used first. */
async function labelsByUse(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ title: string }>(
      `SELECT l.title FROM labels l LEFT JOIN tags t ON t.name = l.title
       WHERE l.account_id = $1 ORDER BY coalesce(t.taggings_count, 0) DESC, l.title`,
      [ACCOUNT_ID],
    );
    return rows.map((r) => r.title);
  } finally {
    await client.end();
  }
}

export async function triagePhase(args: Args, notes: string[]): Promise<TriagePhase | undefined> {
  const url = serverDatabaseUrl(args);
  const labels = await labelsByUse(args.databaseUrl);
  if (labels.length < 3) {
    notes.push(`triage: account ${ACCOUNT_ID} has ${labels.length} labels, too few for the sample (not measured)`);
    return undefined;
  }
  const middle = Math.floor(labels.length / 2);
  const [busyLabel, rareLabels] = [labels[0]!, [labels[middle - 1]!, labels[middle]!]];
  const directory = await findDirectoryAccount(args.databaseUrl);
  if (!directory)
    notes.push(
      `triage: no directory account in the data, get_account measured in account ${ACCOUNT_ID} only (add it: npm run bench:data -- --scale ${args.scale} --only directory)`,
    );
  log(`triage: list_conversations and get_account (busy label ${busyLabel}, rare ${rareLabels.join(', ')})…`);
  const server = await startServer(
    serverCliEnv({ DATABASE_URL: url, SEARCHDESK_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) }),
  );
  try {
    const results = await measureTriage({
      databaseUrl: url,
      serverUrl: server.url,
      reps: TRIAGE_REPS,
      accountId: ACCOUNT_ID,
      adminToken: LARGE_ADMIN_TOKEN,
      agentToken: LARGE_AGENT_TOKEN,
      busyLabel,
      rareLabels,
      ...(directory && { directory }),
    });
    return { results, busyLabel, rareLabels, reps: TRIAGE_REPS, ...(directory && { directoryAccount: directory.accountId }) };
  } finally {
    await server.stop();
  }
}
