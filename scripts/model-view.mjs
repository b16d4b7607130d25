// What the model sees (issue 52): runs the cases of the issue against the built CLI over stdio,
// on the embedded demo help desk in a fresh temporary data directory, with the MCP SDK's client,
// and prints for each first only `structuredContent` (what Claude Code passes to the model),
// then only the text block (what hosts that read `content` pass). Not part of `npm test`.
//
//   npm run build && node scripts/model-view.mjs > model-view.txt
//
// structuredContent is an object: it is printed indented for reading (a host serialises it as
// it likes); the text block is printed exactly as it arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const CLI = fileURLToPath(new globalThis.URL('../dist/cli.js', import.meta.url));
const DAY_MS = 86_400_000;
const isoDay = (daysAgo) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

/** One stdio session per caller (the demo's tokens) and budget; sessions run one after another. */
const sessions = [
  {
    who: 'demo-admin-token (administrator of account 1, Acme)',
    env: {},
    cases: [
      ['search_contacts, page 1 of several', 'search_contacts', { q: 'example' }],
      ['search_messages from:"agent" (not a sender form: a tool error)', 'search_messages', { q: 'refund', from: 'agent' }],
      ['search_messages "damaged parcel"', 'search_messages', { q: 'damaged parcel' }],
      ['search_messages "refunds"', 'search_messages', { q: 'refunds' }],
      ['search_messages "refund" (the shorter form)', 'search_messages', { q: 'refund' }],
      // Olivia Bennett's cracked hopper, 100 days old: outside the window of message search.
      ['a case 100 days old: search_messages "cracked hopper" (since omitted)', 'search_messages', { q: 'cracked hopper' }],
      [
        'the same with since 100 days back (beyond the window: a tool error)',
        'search_messages',
        { q: 'cracked hopper', since: isoDay(100) },
      ],
      ['the way the notice points to: search_conversations "Olivia Bennett"', 'search_conversations', { q: 'Olivia Bennett' }],
    ],
  },
  {
    who: 'demo-agent-token (agent of account 1: Website Chat and Support Email only)',
    env: { SEARCHDESK_ACCESS_TOKEN: 'demo-agent-token' },
    cases: [
      [
        'search_messages "hopper" inbox_id=3 (WhatsApp, not one of the agent\'s inboxes)',
        'search_messages',
        { q: 'hopper', inbox_id: 3 },
      ],
      ['search_messages "hopper" inbox_id=2 (one of the agent\'s inboxes)', 'search_messages', { q: 'hopper', inbox_id: 2 }],
    ],
  },
  {
    who: 'demo-globex-token (administrator of account 2, Globex: message search not enabled)',
    env: { SEARCHDESK_ACCESS_TOKEN: 'demo-globex-token' },
    cases: [['search_all "wobble"', 'search_all', { q: 'wobble' }]],
  },
  {
    who: 'demo-admin-token with SEARCHDESK_MAX_RESULT_CHARS=5000 (a budget cut)',
    env: { SEARCHDESK_MAX_RESULT_CHARS: '5000' },
    cases: [['search_messages "refund" (a full page, 5,000 characters at most)', 'search_messages', { q: 'refund' }]],
  },
];

const rule = (c) => c.repeat(100);
const out = (line) => process.stdout.write(`${line}\n`);

async function runSession(dataDir, session) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SEARCHDESK_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio'],
    env: { ...env, ...session.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'model-view', version: '0.0.0' });
  await client.connect(transport);
  out(`${rule('=')}\nCaller: ${session.who}\n${rule('=')}`);
  try {
    for (const [title, name, args] of session.cases) {
      const result = await client.callTool({ name, arguments: args });
      out(`\n${rule('-')}\n${title}\n  ${name} ${JSON.stringify(args)}${result.isError ? '   → isError: true' : ''}`);
      out('\n[structuredContent only, as Claude Code passes it]');
      out(
        result.structuredContent === undefined
          ? '(none: a tool error has only its text)'
          : JSON.stringify(result.structuredContent, null, 2),
      );
      out('\n[text block only, as hosts reading content pass it]');
      for (const block of result.content) out(block.type === 'text' ? block.text : `(${block.type} block)`);
      const chars = result.content.reduce((n, block) => n + (block.text?.length ?? 0), 0);
      out(`(${chars} characters)`);
    }
  } finally {
    await client.close();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'searchdesk-model-view-'));
try {
  out(`What the model sees — searchdesk ${CLI} on the embedded demo (${new Date().toISOString()})\n`);
  for (const session of sessions) await runSession(dataDir, session);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
