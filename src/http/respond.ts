/**
 * Writing responses, the one HTTP error handler, and reading a bounded JSON body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import { toSearchError } from '../errors.js';
import { ERROR_STATUS } from './status.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * The HTTP error handler: maps anything thrown to `{ "error": message }` with the SearchError's
 * status (`status.ts`), by code. Unknown errors are a 500 "Internal error" whose details only reach the log.
 */
export function sendError(res: ServerResponse, err: unknown, log: Logger): number {
  const error = toSearchError(err);
  const status = ERROR_STATUS[error.code];
  if (error.code === 'internal')
    log.error({ event: 'http_internal_error', err: error.cause ?? error }, 'request failed unexpectedly');
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  // RFC 6750: a 401 names the scheme, so clients can tell the user a token is needed.
  sendJson(res, status, { error: error.message }, status === 401 ? { 'www-authenticate': WWW_AUTHENTICATE } : {});
  return status;
}

/** The challenge of every HTTP 401. */
export const WWW_AUTHENTICATE = 'Bearer realm="searchdesk"';

/** A JSON-RPC error response for failures before the MCP layer sees the request. */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** Reads the whole body, refusing more than `limit` bytes (by Content-Length up front, or while reading). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
