/** The Postgres message engine: the strategies of postgres/strategies.ts, and what they weigh, gathered once a search. */
import { INDEX, searchdeskIndexes } from '../../db/catalog.js';
import { SqlParams, type Db } from '../../db/db.js';
import type { SearchContext } from '../context.js';
import { runPlan } from '../plan/executor.js';
import type { PlanOptions } from '../plan/strategy.js';
import { lexemeStats, tableStats, valuesShare, type TableStats } from '../statistics.js';
import { hasTrigram } from '../text.js';
import type { MessageEngine } from './engine.js';
import { buildFirstMatchQuery } from './first-match.js';
import type { MessageQuery } from './query.js';
import type { MessageRow } from './records.js';
import { messageFilterClauses } from './postgres/clauses.js';
import { firstMessageStep, indexedWord, messageLimits, wordShares, type MessageLimits } from './postgres/estimates.js';
import type { Select } from './postgres/statements.js';
import { MESSAGE_STRATEGIES, type MessagePlanInput } from './postgres/strategies.js';

const STATS_COLUMNS = ['content', 'account_id', 'inbox_id', 'sender_id'] as const;

/** The sender's estimated messages for a walk by searchdesk's index (0: unknown); undefined without it or past walkCap. */
function senderRows(query: MessageQuery, stats: TableStats | undefined, indexed: boolean, limits: MessageLimits) {
  if (!query.sender || !indexed) return undefined;
  const share = stats && valuesShare(stats, 'sender_id', [query.sender.id]);
  if (!stats || share === undefined) return 0;
  const rows = share * stats.rows;
  return rows <= limits.walkCap ? rows : undefined;
}

/** What the strategies weigh: the statistics, searchdesk's indexes, each word's share, the first step. */
async function planInput(db: Db, query: MessageQuery, select: Select, limits: MessageLimits, plan: PlanOptions) {
  const stats = await tableStats(db, 'messages', STATS_COLUMNS);
  const indexes = await searchdeskIndexes(db);
  // One inbox's messages are walked by searchdesk's index by inbox.
  const walk = query.inboxIds.length === 1 && indexes.has(INDEX.messagesInbox) ? 'inbox' : 'account';
  const wordsIndexed = indexes.has(INDEX.messagesWords);
  const shares = wordShares(query, stats, wordsIndexed ? await lexemeStats(db, INDEX.messagesWords) : undefined);
  const indexed = wordsIndexed ? indexedWord(query, shares, limits) : undefined;
  const first = query.words.some(hasTrigram) ? firstMessageStep(query, stats, limits, walk, shares, indexed?.share) : undefined;
  const sender = senderRows(query, stats, indexes.has(INDEX.messagesSender), limits);
  const wordIndex = indexed ? [indexed.word] : [];
  const disabled = plan.disabled;
  return { query, select, limits, stats, walk, first, senderRows: sender, wordIndex, disabled } satisfies MessagePlanInput;
}

/** `plan`: force and disabled when the search's context has none (tests, bench); `limits`: the knobs (costs.ts). */
export function createPostgresEngine(db: Db, limits?: MessageLimits, plan: PlanOptions = {}): MessageEngine {
  const run = async (query: MessageQuery, select: Select, ctx?: SearchContext) => {
    const options = ctx?.plan ?? plan;
    const input = await planInput(db, query, select, limits ?? messageLimits(options), options);
    return runPlan({ db, logger: ctx?.logger, plan: options }, MESSAGE_STRATEGIES, input);
  };
  return {
    name: 'postgres',
    label: 'postgres',
    findIds: async (query, ctx) => (await run(query, 'id', ctx)).map((r) => Number(r.id)),
    findRows: async (query, ctx) => (await run(query, 'record', ctx)) as MessageRow[],
    firstMatch: async (query, forms) => {
      const p = new SqlParams();
      const [row] = await db.query<{ first: number | null }>(
        buildFirstMatchQuery(query, forms, p, messageFilterClauses(query, p, 'hidden')),
        'search_messages_pg_first_match',
      );
      return row?.first ?? undefined;
    },
    check: () => db.ping(),
    async close() {},
  };
}
