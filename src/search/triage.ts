/**
 * The triage list and the directory as the surfaces run them: one function per operation name,
 * returning the body (REST body = MCP structuredContent) and the facts both surfaces report,
 * notices included (contract §10).
 */
import type { SearchContext } from './context.js';
import { getAccountDirectory, getDirectoryList, type DirectoryKind } from './directory.js';
import { listConversations } from './list.js';
import { LIST_PAGE_SIZE, type ListConversationsParams, type TriageOperation, type TriageParamsOf } from './list-params.js';
import { messageSearchEnabled, type MessageEngines } from './messages/index.js';
import type { AccountDirectory, ConversationList, DirectoryList } from './triage-records.js';

export interface TriageMeta {
  page?: number;
  per_page?: number;
  has_more?: Record<string, boolean>;
  engine: 'postgres';
  /** Sentences for the model: why a result is empty or narrower than asked. */
  notices: string[];
}

export interface TriageResult {
  body: ConversationList | AccountDirectory | DirectoryList;
  meta: TriageMeta;
}

const DIRECTORY_ROUTES: Record<Exclude<TriageOperation, 'list_conversations' | 'get_account'>, DirectoryKind> = {
  list_inboxes: 'inboxes',
  list_teams: 'teams',
  list_agents: 'agents',
  list_labels: 'labels',
};

/** Runs one triage or directory operation with validated parameters for an authorised caller. */
export async function runTriage<O extends TriageOperation>(
  ctx: SearchContext,
  engines: MessageEngines,
  op: O,
  params: TriageParamsOf<O>,
): Promise<TriageResult> {
  if (op === 'list_conversations') {
    const p = params as ListConversationsParams;
    const list = await listConversations(ctx, p);
    return {
      body: { data: { meta: list.counts, payload: list.items } },
      meta: {
        page: p.page ?? 1,
        per_page: LIST_PAGE_SIZE,
        has_more: { conversations: list.hasMore },
        engine: 'postgres',
        notices: list.notices,
      },
    };
  }
  if (op === 'get_account') {
    const { body, notices } = await getAccountDirectory(ctx, messageSearchEnabled(ctx, engines));
    return { body, meta: { engine: 'postgres', notices } };
  }
  const kind: DirectoryKind | undefined = (DIRECTORY_ROUTES as Record<string, DirectoryKind>)[op];
  if (kind === undefined) throw new Error(`unknown triage operation ${op}`);
  return { body: (await getDirectoryList(ctx, kind)) as DirectoryList, meta: { engine: 'postgres', notices: [] } };
}
