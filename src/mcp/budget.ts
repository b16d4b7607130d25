/**
 * The context budget (contract §6): a result whose JSON text is longer than the budget gets its
 * longest free-text fields (message `content`, article `snippet`, an article's whole `content`)
 * shortened with a trailing "…" until it fits. Rows are never dropped; every other field is left as it is.
 */
import type { Payload } from '../search/records.js';

export const ELLIPSIS = '…';

export interface Budgeted {
  payload: Payload;
  /** JSON text of `{ payload }`, at most the budget when shortening could make it fit. */
  text: string;
  truncated: boolean;
}

/** A mutable slot holding one shortenable string. */
interface TextSlot {
  /** The field's name (`content`, `snippet`), for saying what was cut. */
  key: string;
  /**
   * Which text it is: the key and its row's id, so a message shown twice (a transcript's last
   * message, also in its conversation's record) counts once.
   */
  text: string | symbol;
  get(): string;
  set(value: string): void;
}

function slotOf<T extends object, K extends keyof T>(row: T, key: K): TextSlot[] {
  if (typeof row[key] !== 'string') return [];
  const id = (row as { id?: unknown }).id;
  // A row without an id: its own text.
  const text = typeof id === 'number' ? `${String(key)}#${id}` : Symbol(String(key));
  return [{ key: String(key), text, get: () => row[key] as string, set: (v) => void (row[key] = v as T[K]) }];
}

/** Fields whose text may be shortened: message `content`, article `snippet` and an article's whole `content`. */
const SHORTENABLE = new Set(['content', 'snippet']);
/** Free-form data of the help desk: never walked (a `content` key there is not ours). */
const OPAQUE = new Set(['additional_attributes', 'custom_attributes']);

/** The shortenable fields of a (copied) body, found wherever they are nested (payload rows, conversation messages, meta). */
function textSlots(node: unknown, slots: TextSlot[] = []): TextSlot[] {
  if (Array.isArray(node)) {
    for (const item of node) textSlots(item, slots);
  } else if (node !== null && typeof node === 'object') {
    const row = node as Record<string, unknown>;
    for (const key of Object.keys(row)) {
      if (SHORTENABLE.has(key)) slots.push(...slotOf(row, key));
      else if (!OPAQUE.has(key)) textSlots(row[key], slots);
    }
  }
  return slots;
}

/** Cuts `s` to at most `max` characters including the ellipsis, never inside a surrogate pair. */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - ELLIPSIS.length);
  const last = s.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return s.slice(0, end) + ELLIPSIS;
}

export interface BudgetedBody<T> {
  body: T;
  /** JSON text of `body`, at most the budget when shortening could make it fit. */
  text: string;
  truncated: boolean;
  /** How many texts were shortened (one shown twice counts once). */
  shortened: number;
  /** The names of the shortened fields, each once (`content`, `snippet`). */
  fields: string[];
}

/** Fits a search `payload` into `maxChars` of JSON text of `{ payload }` (see fitBodyToBudget). */
export function fitToBudget(payload: Payload, maxChars: number): Budgeted {
  const { body, text, truncated } = fitBodyToBudget({ payload }, maxChars);
  return { payload: body.payload, text, truncated };
}

/**
 * Fits a result body into `maxChars` of JSON text. Finds, by binary search, the largest length cap
 * for the text fields that fits, so the longest fields are shortened first and short ones kept.
 */
export function fitBodyToBudget<T extends object>(body: T, maxChars: number): BudgetedBody<T> {
  const text = JSON.stringify(body);
  if (text.length <= maxChars) return { body, text, truncated: false, shortened: 0, fields: [] };

  const copy = structuredClone(body);
  const slots = textSlots(copy);
  const originals = slots.map((s) => s.get());
  const applyCap = (cap: number) => slots.forEach((slot, i) => slot.set(shorten(originals[i] as string, cap)));
  const fits = (cap: number) => {
    applyCap(cap);
    return JSON.stringify(copy).length <= maxChars;
  };

  let lo = ELLIPSIS.length; // smallest cap: everything becomes "…"
  let hi = Math.max(lo, ...originals.map((s) => s.length)) - 1; // largest cap that still shortens something
  // When even the smallest cap does not fit, keep it anyway: rows are never dropped.
  if (fits(lo)) {
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
  }
  applyCap(lo);
  const cut = slots.filter((slot, i) => slot.get() !== originals[i]);
  return cut.length > 0
    ? {
        body: copy,
        text: JSON.stringify(copy),
        truncated: true,
        shortened: new Set(cut.map((s) => s.text)).size,
        fields: [...new Set(cut.map((s) => s.key))],
      }
    : { body, text, truncated: false, shortened: 0, fields: [] };
}
