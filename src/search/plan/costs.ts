/**
 * The cost model: every knob of the search plans, in one place. The unit is one row a walk tests (a window reads it in index
 * order and tests the match once). Sizes are in those rows, prices of other work in as many of them, shares are fractions of a
 * table's rows. Each knob says in one line why it has its value; the evidence is under its docs/plans.md anchor. A knob in
 * PlanOptions.disabled takes its `off` value: the plan as if it did not exist (the ablation bench, `bench:core --disable`).
 * A knob's name is never a strategy's (`contacts.window` is the strategy, `contacts.sampleWindow` the knob).
 */
import type { PlanOptions } from './strategy.js';

/** A tuning value and its neutral value (what the plan does without it). */
export interface Knob {
  readonly value: number;
  readonly off: number;
}

export const COSTS = {
  // Windows (every resource; plan/windows.ts)
  /** A page needing this many matches ends its window after a whole time, not sorting every row by id (#windows). */
  'windows.tiesMinMatches': { value: 5, off: Infinity },
  /** The least window length written in a statement planned once; ten steps a decade above it (#windows). */
  'windows.ladderLeast': { value: 100, off: 1 },

  // Statistics (plan/../statistics.ts)
  /** At most the share of rows a term no sampled value holds is in: pg_stats samples about 100 values (#statistics). */
  'statistics.unseenShare': { value: 0.01, off: 0 },

  // Contacts (contacts.ts)
  /** Rows of a sample window when the statistics cannot size one: settles a term in 1 contact of 16 (#contacts). */
  'contacts.sampleWindow': { value: 250, off: 0 },
  /** The longest window: past it the trigram index is the bounded choice whatever the estimate (#contacts). */
  'contacts.walkCap': { value: 20_000, off: Infinity },
  /** A window is this many times the rows it is expected to need, as the estimate is rough (#contacts). */
  'contacts.room': { value: 3, off: 1 },
  /** A row the trigram index fetches (heap read, recheck of four columns, posting lists) in rows a walk tests (#contacts). */
  'contacts.fetchCost': { value: 4, off: 1 },

  // Conversations (conversations.ts)
  /** Rows of the first window when the statistics cannot size it: a common term's page is in it (#conversations). */
  'conversations.firstWindow': { value: 1_000, off: 0 },
  /** First window for a term no sampled contact holds whose candidates could pass the longest walk: its matches tell (#conversations). */
  'conversations.sampleWindow': { value: 250, off: 0 },
  /** The longest window; past it the candidates are the bounded choice (#conversations). */
  'conversations.walkCap': { value: 10_000, off: Infinity },
  /** A window is this many times the rows the statistics say the page needs, as the estimate is rough (#conversations). */
  'conversations.room': { value: 3, off: 1 },
  /** A contact the candidates collect (index row, heap visit, probes of its conversations) in rows a walk tests (#conversations). */
  'conversations.candidateCost': { value: 2, off: 1 },
  /** Most contacts (and display ids) the candidates collect: past it, probing each costs more than the plain statement (#conversations). */
  'conversations.candidateCap': { value: 20_000, off: 0 },
  /** Most display ids the candidates generate and probe one by one; past it they are matched as text (#conversations). */
  'conversations.displayIdCap': { value: 3_000, off: 0 },

  // Articles (articles.ts)
  /** Newest titles the window tests: a word common in titles fills its page there (#articles). */
  'articles.titleWindow': { value: 1_000, off: 0 },
  /** Most trigram candidates ranked alone; past it the index no longer narrows much (#articles). */
  'articles.candidateCap': { value: 200, off: 0 },
  /** Newest contents the tiers read: a word in more articles than the cap is in about 1 % of them, so these hold a page (#articles). */
  'articles.contentWindow': { value: 2_000, off: 0 },

  // Messages, Postgres engine (messages/postgres/)
  /** Rows of the first window: its matches tell how common the words are (#messages-postgres-engine). */
  'messages.window': { value: 3_000, off: 0 },
  /** The longest window: past it the trigram index is the bounded choice whatever the estimate (#messages-postgres-engine). */
  'messages.walkCap': { value: 40_000, off: Infinity },
  /** A window is this many times the rows it is expected to need, as the estimate is rough (#messages-postgres-engine). */
  'messages.room': { value: 1.5, off: 1 },
  /** First window for unseen words past the capped read: its matches size the next (#messages-postgres-engine). */
  'messages.sample': { value: 600, off: 0 },
  /** The capped read's least cap: a rare word's whole answer in one statement (#messages-postgres-engine). */
  'messages.capped': { value: 1_000, off: 0 },
  /** A candidate's visit by a trigram read (heap row, word-start test) in window rows (#messages-postgres-engine). */
  'messages.matchRows': { value: 10, off: 1 },
  /** Rows of a window that gave way counted again to estimate what the trigram index fetches (#messages-postgres-engine). */
  'messages.sampleRows': { value: 1_000, off: Infinity },
  /** Messages of the scope up to which few candidates intersect the scope's index (about 1 ms) (#messages-postgres-engine). */
  'messages.scopeIndex': { value: 20_000, off: 0 },
  /** Entries of the scope's index worth one visit, over how much likelier a rare word is: a judgment (#messages-postgres-engine). */
  'messages.visitEntries': { value: 12, off: 1 },
  /** Share of messages under which a word start is read from the word index, not the trigram index (#messages-postgres-engine). */
  'messages.wordIndexShare': { value: 0.01, off: 0 },
  /** A word-index posting gathered and its message visited, in window rows (#messages-postgres-engine). */
  'messages.wordIndexRows': { value: 1.6, off: 1 },
  /** Index entries a bitmap gathers for the cost of one window row (#messages-postgres-engine). */
  'messages.entryRows': { value: 30, off: Infinity },
  /** Share of the walked rows under which a window tests the inboxes and sender before the words (#messages-postgres-engine). */
  'messages.narrowingFirst': { value: 0.5, off: 0 },
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
