/** The message-engine seam: one module per engine (index format), each translating a MessageQuery. */
import type { SearchContext } from '../context.js';
import type { MessageQuery } from './query.js';
import type { MessageRow } from './records.js';

export type EngineName = 'postgres' | 'elasticsearch' | 'opensearch';

export interface MessageEngine {
  readonly name: EngineName;
  /** What `_meta.engine` reports: the engine, plus `+searchkick` when it searches the help desk's own index. */
  readonly label: string;
  /**
   * Ids of matching messages, in order `created_at DESC, id DESC`, `query.limit` at most. `ctx`:
   * the search's logger and plan options, for an engine that plans (Postgres).
   */
  findIds(query: MessageQuery, ctx?: SearchContext): Promise<number[]>;
  /**
   * The same messages as rows ready to be records, in the same statements (an engine that reads
   * Postgres itself: no second read of the page by id).
   */
  findRows?(query: MessageQuery, ctx?: SearchContext): Promise<MessageRow[]>;
  /**
   * Of `forms` (words, the one wanted most first), the index of the first that some message
   * matches on its own under every filter of `query` (its words, offset and limit aside), or
   * undefined when none does: one statement or request, for the notices of an empty search.
   */
  firstMatch?(query: MessageQuery, forms: string[]): Promise<number | undefined>;
  /**
   * The engine matches analysed words (stems, a typo), not word prefixes: a shorter form of a
   * word finds nothing more than the word, so an empty search's checks ask for the words alone.
   */
  readonly analyzed?: boolean;
  /** Resolves when the engine answers and its index is usable; throws otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}
