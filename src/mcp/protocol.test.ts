import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  allowsBatches,
  DEFAULT_PROTOCOL_VERSION,
  isNotification,
  isRequest,
  negotiateVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  toMessage,
} from './protocol.js';

describe('protocol', () => {
  it('speaks the 2025-era protocol versions the SDK 2.x server speaks with initialize, newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_VERSIONS);
  });

  it('assumes 2025-03-26 without a version, as the SDK does, and allows batches up to it only', () => {
    expect(DEFAULT_PROTOCOL_VERSION).toBe(DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
    const batching = SUPPORTED_PROTOCOL_VERSIONS.filter(allowsBatches);
    expect(batching).toEqual(['2025-03-26', '2024-11-05', '2024-10-07']);
    // A revision newer than this server knows has no batches either.
    expect(allowsBatches('2026-07-28')).toBe(false);
    expect(allowsBatches(DEFAULT_PROTOCOL_VERSION)).toBe(true);
  });

  it('negotiates the version asked when it speaks it, else its newest', () => {
    expect(negotiateVersion('2025-03-26')).toBe('2025-03-26');
    for (const asked of ['1999-01-01', 7, undefined]) expect(negotiateVersion(asked)).toBe(SUPPORTED_PROTOCOL_VERSIONS[0]);
  });

  it('tells requests, notifications and responses apart', () => {
    const request = toMessage({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const notification = toMessage({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(request && isRequest(request)).toBe(true);
    expect(notification && isNotification(notification)).toBe(true);
    expect(notification && isRequest(notification)).toBe(false);
    expect(toMessage({ jsonrpc: '2.0', id: 'a', result: {} })).toBeDefined();
    expect(toMessage({ jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } })).toBeDefined();
  });

  it('refuses what is not a JSON-RPC 2.0 message', () => {
    for (const value of [
      null,
      [],
      'ping',
      { id: 1, method: 'ping' },
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 7 },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: {}, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['search_contacts'] },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, result: 'ok' },
    ])
      expect(toMessage(value), JSON.stringify(value)).toBeUndefined();
  });
});
