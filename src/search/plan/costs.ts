/**
 * Every knob of the search plans (docs/plans.md, Cost model): in rows a walk tests, prices of other work in as many rows,
 * shares as fractions of a table's rows. A knob disabled in PlanOptions takes its `off` value (the ablation bench).
 */
import type { PlanOptions } from './strategy.js';

/** A tuning value and its neutral value (what the plan does without it). */
export type Knob = { readonly value: number; readonly off: number };

// One line of why each; the evidence is under the docs/plans.md section named in each group.
export const COSTS = {
  // Windows (plan/windows.ts)
  'windows.tiesMinMatches': { value: 5, off: Infinity }, // a page of this many matches ends its window after a whole time
  'windows.ladderLeast': { value: 100, off: 1 }, // least window length written in a statement planned once; ten steps a decade
  // Statistics
  'statistics.unseenShare': { value: 0.01, off: 0 }, // most share of a term no sampled value holds: pg_stats samples ~100 values
  // Contacts
  'contacts.sampleWindow': { value: 250, off: 0 }, // sample window when the statistics cannot size one
  'contacts.walkCap': { value: 20_000, off: Infinity }, // longest window: past it the trigram index is the bounded choice
  'contacts.room': { value: 3, off: 1 }, // a window is this many times the rows expected, as the estimate is rough
  'contacts.fetchCost': { value: 4, off: 1 }, // a row the trigram index fetches (heap, recheck, postings)
  // Conversations
  'conversations.firstWindow': { value: 1_000, off: 0 }, // first window without statistics: a common term's page is in it
  'conversations.sampleWindow': { value: 250, off: 0 }, // first window for an unseen term whose candidates could pass walkCap
  'conversations.walkCap': { value: 10_000, off: Infinity }, // longest window; past it the candidates are the bounded choice
  'conversations.room': { value: 3, off: 1 }, // a window is this many times the rows expected, as the estimate is rough
  'conversations.candidateCap': { value: 20_000, off: 0 }, // most contacts and display ids collected; past it the scan is cheaper
  'conversations.displayIdCap': { value: 3_000, off: 0 }, // most display ids probed one by one; past it matched as text
  // Articles
  'articles.titleWindow': { value: 1_000, off: 0 }, // newest titles a window tests: a word common in titles fills its page
  'articles.candidateCap': { value: 200, off: 0 }, // most trigram candidates ranked alone; past it the index barely narrows
  'articles.contentWindow': { value: 2_000, off: 0 }, // newest contents the tiers read: hold a page of a word past the cap
  // Messages, Postgres engine (messages/postgres/)
  'messages.window': { value: 3_000, off: 0 }, // first window: its matches tell how common the words are
  'messages.walkCap': { value: 40_000, off: Infinity }, // longest window: past it the trigram index is the bounded choice
  'messages.room': { value: 1.5, off: 1 }, // a window is this many times the rows expected, as the estimate is rough
  'messages.capped': { value: 1_000, off: 0 }, // the capped read's least cap: a rare word's whole answer in one statement
  'messages.matchRows': { value: 10, off: 1 }, // a candidate's visit by a trigram read (heap row, word-start test)
  'messages.wordIndexShare': { value: 0.01, off: 0 }, // share under which a word start is read from the word index
  'messages.narrowingFirst': { value: 0.5, off: 0 }, // walked share under which a window tests inboxes and sender first
} as const satisfies Record<string, Knob>;

export type KnobName = keyof typeof COSTS;

/** The knob's value, or its neutral value when the plan options disable it. */
export function knob(name: KnobName, options?: PlanOptions): number {
  return options?.disabled?.has(name) ? COSTS[name].off : COSTS[name].value;
}

/** Whether `name` is a knob (for the bench's --disable, which takes knobs and strategies). */
export function isKnob(name: string): name is KnobName {
  return Object.hasOwn(COSTS, name);
}
