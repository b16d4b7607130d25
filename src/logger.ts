/** pino to stderr (stdout belongs to the stdio protocol), with secrets redacted wherever they appear. */
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'api_access_token',
  '*.api_access_token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.api_access_token',
  'req.headers.authorization',
  'req.headers.api_access_token',
  'databaseUrl',
  '*.databaseUrl',
  'DATABASE_URL',
  'SEARCHDESK_ACCESS_TOKEN',
];

/** Creates the process logger; `destination` defaults to stderr (fd 2). */
export function createLogger(level: string, destination: pino.DestinationStream = pino.destination(2)): Logger {
  return pino({ level, base: { name: 'searchdesk' }, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
