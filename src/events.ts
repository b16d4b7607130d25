/**
 * Operational events the core reports and the HTTP server's metrics count (src/http/metrics.ts).
 * Process-wide, dependency-free, below every layer like src/errors.ts: with no listener (stdio,
 * admin commands) reporting costs a Set lookup.
 */

/** A search engine failed and Postgres answered instead; `timeout` when it did not answer in time. */
export interface EngineFallbackEvent {
  engine: string;
  reason: 'timeout' | 'error';
}

type Listener = (event: EngineFallbackEvent) => void;

const fallbackListeners = new Set<Listener>();

/** Subscribes to engine fallbacks; returns the unsubscribe function. */
export function onEngineFallback(listener: Listener): () => void {
  fallbackListeners.add(listener);
  return () => fallbackListeners.delete(listener);
}

/** Reports that `engine` failed with `err` and the search was answered from Postgres. */
export function reportEngineFallback(engine: string, err: unknown): void {
  if (fallbackListeners.size === 0) return;
  const name = err instanceof Error ? err.name : '';
  const reason = /timeout|abort/i.test(name) ? 'timeout' : 'error';
  for (const listener of fallbackListeners) listener({ engine, reason });
}

/**
 * Something the operator can fix to make searches faster, found while searching (the role cannot
 * read statistics a plan would use, say): `event` names it, `message` says what to do. Reported
 * each time it is found; the listener decides how often to say it.
 */
export interface AdviceEvent {
  event: string;
  message: string;
}

const adviceListeners = new Set<(advice: AdviceEvent) => void>();

/** Subscribes to advice; returns the unsubscribe function. */
export function onAdvice(listener: (advice: AdviceEvent) => void): () => void {
  adviceListeners.add(listener);
  return () => adviceListeners.delete(listener);
}

export function reportAdvice(advice: AdviceEvent): void {
  for (const listener of adviceListeners) listener(advice);
}
