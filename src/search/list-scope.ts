/**
 * What a triage list reads in: the caller's inboxes it lists (or the one it names), and the tags
 * of the labels it names, from a look-up of the team and labels in the account (contract §9.2).
 */
import { SqlParams, type SqlQuery } from '../db/db.js';
import type { AccessContext } from '../auth/access.js';
import type { SearchContext } from './context.js';
import { MAX_LABELS, type ListConversationsParams } from './list-params.js';
import { triageNotices, type Lookup } from './list-notices.js';

/**
 * What the look-up resolved: the inboxes to list and the ids of the tags of the label titles to
 * match (undefined: no label filter; empty: labels that no conversation carries).
 */
export interface ListScope {
  inboxIds: number[];
  tagIds?: number[];
  /** The labels' taggings by the tags' counter (`taggings_count`, every account's): only chooses a plan. */
  taggings?: number;
}

/**
 * The look-up of a team and labels a list names, in the account only: whether the team is one of
 * its teams, which of its labels the titles name (case-insensitively, as the help desk's
 * `tagged_with` matches) with the ids of their tags (the tag a label's title names) and an
 * estimate of their taggings (to choose a plan: labelClause), and the first of its labels for a notice.
 */
export function buildListLookupQuery(access: Pick<AccessContext, 'accountId'>, params: ListConversationsParams): SqlQuery {
  const p = new SqlParams();
  const account = p.add(access.accountId);
  const team =
    params.team_id === undefined
      ? 'true'
      : `EXISTS (SELECT 1 FROM teams t WHERE t.account_id = ${account}::bigint AND t.id = ${p.add(params.team_id)}::bigint)`;
  const asked = p.add((params.labels ?? []).map((l) => l.toLowerCase()));
  const text = `
    WITH tg AS MATERIALIZED (
      SELECT t.id, t.taggings_count FROM tags t WHERE t.name IN (
        SELECT l.title FROM labels l WHERE l.account_id = ${account}::bigint AND lower(l.title) = ANY(${asked}::text[])))
    SELECT ${team} AS team_found,
           ARRAY(SELECT l.title FROM labels l WHERE l.account_id = ${account}::bigint
                 AND lower(l.title) = ANY(${asked}::text[]) ORDER BY l.title) AS matched,
           ARRAY(SELECT tg.id FROM tg ORDER BY tg.id) AS tag_ids,
           (SELECT coalesce(sum(tg.taggings_count), 0)::int FROM tg) AS taggings,
           ARRAY(SELECT l.title FROM labels l WHERE l.account_id = ${account}::bigint
                 ORDER BY l.title LIMIT ${MAX_LABELS + 1}) AS known`;
  return { text, values: p.values };
}

export /** The scope of a list and its notices; `inboxIds` empty when it names something the caller may not see. */
async function resolveScope(
  ctx: SearchContext,
  params: ListConversationsParams,
): Promise<{ scope: ListScope; notices: string[] }> {
  const visible = ctx.access.inboxIds;
  const inboxSeen = params.inbox_id === undefined || visible.includes(params.inbox_id);
  let lookup: Lookup | undefined;
  if (params.team_id !== undefined || params.labels !== undefined) {
    [lookup] = await ctx.db.query<Lookup>(buildListLookupQuery(ctx.access, params), 'list_conversations_lookup');
  }
  const notices = triageNotices(params, { inboxSeen, visibleInboxes: visible.length, lookup });
  const tagIds = params.labels === undefined ? undefined : (lookup?.tag_ids ?? []);
  // A label no conversation carries has no tag: nothing matches.
  const blocked = !inboxSeen || lookup?.team_found === false || tagIds?.length === 0;
  const inboxIds = blocked ? [] : params.inbox_id !== undefined ? [params.inbox_id] : visible;
  return { scope: { inboxIds, ...(tagIds && { tagIds, taggings: lookup?.taggings ?? 0 }) }, notices };
}
