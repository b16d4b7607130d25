/**
 * The SDK's own answers to a 2026-07-28 `server/discover` and `tools/list` (results only; the
 * id is the request's), for stdio's first exchange (discovery.ts). The release build
 * (scripts/build.mjs) evaluates this module and ships the results as JSON, as it does the tool
 * list; from source they are computed on import by running modern.ts once.
 */
import { readFileSync } from 'node:fs';
import { serveModernStdio } from './modern.js';
import type { McpServerOptions } from './options.js';

export interface DiscoveryAnswers {
  version: string;
  discover: unknown;
  toolsList: unknown;
}

/** What a 2026-07-28 request carries: the envelope the SDK requires of every request. */
const DISCOVERY_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'searchdesk-build', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function compute(): Promise<DiscoveryAnswers> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const answers = new Map<unknown, unknown>();
  // Discovery and the tool list need no data, no token and no logger: nothing else is given.
  const opts = { version: pkg.version } as McpServerOptions;
  const channel = serveModernStdio(opts, (message) => {
    const { id, result } = message as { id: unknown; result?: unknown };
    answers.set(id, result);
  });
  await channel.deliver({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: DISCOVERY_ENVELOPE } });
  await channel.deliver({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: DISCOVERY_ENVELOPE } });
  await channel.close();
  const [discover, toolsList] = [answers.get(1), answers.get(2)];
  if (!discover || !toolsList) throw new Error('the SDK answered server/discover or tools/list with an error');
  return { version: pkg.version, discover, toolsList };
}

export const DISCOVERY_ANSWERS: DiscoveryAnswers = await compute();
