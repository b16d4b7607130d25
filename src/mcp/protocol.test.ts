import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { isNotification, isRequest, SUPPORTED_PROTOCOL_VERSIONS, toMessage } from './protocol.js';

describe('protocol', () => {
  it('speaks the protocol versions the SDK 1.x client and server speak, newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_VERSIONS);
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
