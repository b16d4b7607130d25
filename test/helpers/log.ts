/** A logger whose lines are kept in memory, to assert on what is (and is not) logged. */
import { createLogger, type Logger } from '../../src/logger.js';

export function memoryLogger(level = 'debug'): {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  text: () => string;
} {
  const chunks: string[] = [];
  const logger = createLogger(level, { write: (s: string) => void chunks.push(s) });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
