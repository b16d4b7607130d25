/**
 * The context budget (contract §6): a result whose JSON text is longer than the budget gets its
 * longest free-text fields (message `content`, article `snippet`) shortened with a trailing "…"
 * until it fits. Rows are never dropped; every other field is left as it is.
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
  get(): string;
  set(value: string): void;
}

function slotOf<T extends object, K extends keyof T>(row: T, key: K): TextSlot[] {
  if (typeof row[key] !== 'string') return [];
  return [{ get: () => row[key] as string, set: (v) => void (row[key] = v as T[K]) }];
}

/** The shortenable fields of a (copied) payload: message contents, nested ones too, and snippets. */
function textSlots(payload: Payload): TextSlot[] {
  return [
    ...(payload.messages ?? []).flatMap((m) => slotOf(m, 'content')),
    ...(payload.conversations ?? []).flatMap((c) => c.messages.flatMap((m) => slotOf(m, 'content'))),
    ...(payload.articles ?? []).flatMap((a) => slotOf(a, 'snippet')),
  ];
}

/** Cuts `s` to at most `max` characters including the ellipsis, never inside a surrogate pair. */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = Math.max(0, max - ELLIPSIS.length);
  const last = s.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return s.slice(0, end) + ELLIPSIS;
}

const render = (payload: Payload) => JSON.stringify({ payload });

/**
 * Fits `payload` into `maxChars` of JSON text. Finds, by binary search, the largest length cap
 * for the text fields that fits, so the longest fields are shortened first and short ones kept.
 */
export function fitToBudget(payload: Payload, maxChars: number): Budgeted {
  const text = render(payload);
  if (text.length <= maxChars) return { payload, text, truncated: false };

  const copy = structuredClone(payload);
  const slots = textSlots(copy);
  const originals = slots.map((s) => s.get());
  const applyCap = (cap: number) => slots.forEach((slot, i) => slot.set(shorten(originals[i] as string, cap)));
  const fits = (cap: number) => {
    applyCap(cap);
    return render(copy).length <= maxChars;
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
  const truncated = slots.some((slot, i) => slot.get() !== originals[i]);
  return truncated ? { payload: copy, text: render(copy), truncated } : { payload, text, truncated };
}
