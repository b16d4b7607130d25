/**
 * The notices of the triage list (contract §10): why a list is empty or narrower than asked, in
 * sentences a model can act on.
 */
import { MAX_LABELS, type ListConversationsParams } from './list-params.js';

/** The look-up statement's row (buildListLookupQuery). */
export interface Lookup {
  team_found: boolean;
  /** The account's label titles the asked titles name. */
  matched: string[];
  /** The ids of the tags those titles name (a label no conversation ever carried may have none). */
  tag_ids: number[];
  /** Their tags' `taggings_count` summed (every account's): chooses the plan (list.ts labelClause). */
  taggings: number;
  /** The account's first MAX_LABELS + 1 label titles, by title. */
  known: string[];
}

export interface NoticeFacts {
  /** The asked inbox is one of the caller's (true when none was asked). */
  inboxSeen: boolean;
  visibleInboxes: number;
  lookup?: Lookup;
}

const quoted = (titles: string[]) => titles.map((t) => `"${t}"`).join(', ');

/** "The account's labels are: a, b (and more: get_account lists them all)." */
function knownLabels(known: string[]): string {
  if (known.length === 0) return 'This account has no labels.';
  const shown = known.slice(0, MAX_LABELS);
  const more = known.length > MAX_LABELS ? ', and more (get_account lists them)' : '';
  return `The account's labels are: ${quoted(shown)}${more}.`;
}

function labelNotices(asked: string[], lookup: Lookup): string[] {
  const found = new Set(lookup.matched.map((t) => t.toLowerCase()));
  const unknown = asked.filter((t) => !found.has(t.toLowerCase()));
  if (unknown.length === 0) return [];
  const which = `No label of this account is called ${quoted(unknown)}`;
  if (lookup.matched.length === 0) return [`${which}, so no conversation was listed. ${knownLabels(lookup.known)}`];
  return [`${which}: only conversations labelled ${quoted(lookup.matched)} were listed. ${knownLabels(lookup.known)}`];
}

/** Every notice of one list call, in the order of its parameters. */
export function triageNotices(params: ListConversationsParams, facts: NoticeFacts): string[] {
  const notices: string[] = [];
  if (facts.visibleInboxes === 0)
    notices.push('You are not a member of any inbox of this account, so no conversation is visible to you.');
  else if (!facts.inboxSeen)
    notices.push(
      `Inbox ${params.inbox_id} is not one of the inboxes you may see, so no conversation was listed; get_account lists your inboxes.`,
    );
  if (facts.lookup?.team_found === false)
    notices.push(
      `Team ${params.team_id} is not a team of this account, so no conversation was listed; get_account lists its teams.`,
    );
  if (params.labels !== undefined && facts.lookup) notices.push(...labelNotices(params.labels, facts.lookup));
  return notices;
}
