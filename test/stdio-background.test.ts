/**
 * Issue 51, part 5: over stdio the handshake never waits for the embedded database. `initialize`
 * and `tools/list` are answered while the demo is still being created (its `embedded_db_created`
 * log line comes later); the first tool call waits for it. A start that fails makes every call a
 * clear tool error, while the handshake still works, and the next call after the cause is fixed
 * starts it. The tokens of the demo are known without the database, so a wrong one still refuses
 * the start (contract §2). The built CLI, spawned with a raw JSON-RPC client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, cliEnv, initializeRequest, logLines, runCli } from './helpers/spawn.js';

const root = mkdtempSync(join(tmpdir(), 'searchdesk-background-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Answer {
  id: number;
  result?: { tools?: Array<{ name: string }>; isError?: boolean; content?: Array<{ text: string }>; structuredContent?: unknown };
  error?: unknown;
}

/** A stdio session with a raw JSON-RPC client: each answer with the stderr written before it arrived. */
class RawStdio {
  readonly child: ChildProcess;
  stderr = '';
  private buffer = '';
  private next = 1;
  private readonly waiting = new Map<number, (answer: { answer: Answer; stderr: string }) => void>();

  constructor(env: Record<string, string>) {
    assertBuilt();
    this.child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const answer = JSON.parse(this.buffer.slice(0, nl)) as Answer;
        this.buffer = this.buffer.slice(nl + 1);
        this.waiting.get(answer.id)?.({ answer, stderr: this.stderr });
      }
    });
  }

  request(method: string, params?: Record<string, unknown>): Promise<{ answer: Answer; stderr: string }> {
    const id = this.next++;
    const message = method === 'initialize' ? initializeRequest('2025-11-25', id) : { jsonrpc: '2.0', id, method, params };
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** The handshake of an MCP client: initialize, initialized, tools/list; resolves with the tools/list answer. */
  async handshake(): Promise<{ answer: Answer; stderr: string }> {
    await this.request('initialize');
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return this.request('tools/list');
  }

  call(name: string, args: Record<string, unknown>, params: Record<string, unknown> = {}) {
    return this.request('tools/call', { name, arguments: args, ...params });
  }

  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.stdin!.end();
    return exited;
  }
}

const sessions: RawStdio[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});
function open(env: Record<string, string>): RawStdio {
  const s = new RawStdio(env);
  sessions.push(s);
  return s;
}
const events = (stderr: string) => logLines(stderr).map((l) => l.event);

describe('stdio on the embedded demo: the handshake does not wait for the database', () => {
  it('answers tools/list while the demo is being created, and the first search once it is', async () => {
    const s = open(cliEnv({ SEARCHDESK_DATA_DIR: join(root, 'fresh') }));
    const listed = await s.handshake();
    expect(listed.answer.result?.tools).toHaveLength(10);
    // Ordering, not timing: when tools/list was answered, the database had not said it was ready.
    expect(events(listed.stderr)).toContain('stdio_ready');
    expect(events(listed.stderr)).not.toContain('embedded_db_created');

    const found = await s.call('search_contacts', { q: 'anderson' });
    expect(found.answer.result?.isError).toBeUndefined();
    const { payload } = found.answer.result?.structuredContent as { payload: { contacts: Array<{ name: string }> } };
    expect(payload.contacts.length).toBeGreaterThan(0);
    expect(payload.contacts.every((c) => /anderson/i.test(c.name))).toBe(true);
    const order = events(found.stderr);
    expect(order.indexOf('embedded_db_created')).toBeGreaterThan(order.indexOf('stdio_ready'));
    expect(await s.close()).toBe(0);
  }, 120_000);

  it('answers every call with a clear tool error while the database cannot start, and starts it once the cause is fixed', async () => {
    // The data directory cannot be created: a file stands where its parent should be.
    const blocker = join(root, 'not-a-directory');
    writeFileSync(blocker, 'in the way\n');
    const s = open(cliEnv({ SEARCHDESK_DATA_DIR: join(blocker, 'data') }));
    const listed = await s.handshake();
    expect(listed.answer.result?.tools).toHaveLength(10);

    for (const q of ['anderson', 'refund']) {
      const failed = await s.call('search_contacts', { q });
      expect(failed.answer.result?.isError).toBe(true);
      expect(failed.answer.result?.content?.[0]?.text).toMatch(
        /^The embedded database could not start: .*ENOTDIR.*\. Fix the cause; the next call tries again\.$/,
      );
    }
    expect(events(s.stderr)).toContain('embedded_db_failed');
    // Still speaking the protocol after the failures.
    expect((await s.request('tools/list')).answer.result?.tools).toHaveLength(10);

    rmSync(blocker);
    mkdirSync(blocker);
    const fixed = await s.call('search_contacts', { q: 'anderson' });
    expect(fixed.answer.result?.isError).toBeUndefined();
    expect(events(fixed.stderr)).toContain('embedded_db_created');
    expect(await s.close()).toBe(0);
  }, 120_000);
});

describe('stdio on the embedded demo, 2026-07-28: discovery does not wait for the database either', () => {
  const envelope = {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  };

  it('answers server/discover and tools/list while the demo is being created, and the first search once it is', async () => {
    const s = open(cliEnv({ SEARCHDESK_DATA_DIR: join(root, 'fresh-modern') }));
    const discovered = await s.request('server/discover', envelope);
    expect(discovered.answer.result).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']) });
    const listed = await s.request('tools/list', envelope);
    expect(listed.answer.result?.tools).toHaveLength(10);
    expect(events(listed.stderr)).not.toContain('embedded_db_created');

    const found = await s.call('search_contacts', { q: 'anderson' }, envelope);
    expect(found.answer.result?.isError).toBeUndefined();
    expect(events(found.stderr)).toContain('embedded_db_created');
    expect(await s.close()).toBe(0);
  }, 120_000);
});

describe('stdio on the embedded demo: the token is still checked at start (contract §2)', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['an unknown token', 'nope', /^searchdesk: SEARCHDESK_ACCESS_TOKEN is not accepted: Invalid Access Token$/],
    [
      "the demo bot's token",
      'demo-bot-token',
      /^searchdesk: SEARCHDESK_ACCESS_TOKEN is not accepted: Access to this endpoint is not authorized for bots$/,
    ],
  ];
  for (const [name, token, message] of cases) {
    it(`refuses to start with ${name}, before the database is started`, async () => {
      const dataDir = join(root, `refused-${token}`);
      const r = await runCli([], cliEnv({ SEARCHDESK_DATA_DIR: dataDir, SEARCHDESK_ACCESS_TOKEN: token }));
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
      expect(existsSync(dataDir), 'the database was never started').toBe(false);
    });
  }

  it("serves a demo agent's token, limited to its inboxes", async () => {
    const s = open(cliEnv({ SEARCHDESK_DATA_DIR: join(root, 'fresh'), SEARCHDESK_ACCESS_TOKEN: 'demo-agent-token' }));
    await s.handshake();
    const hopper = await s.call('search_messages', { q: 'hopper' });
    expect(hopper.answer.result?.structuredContent).toMatchObject({ payload: { messages: [] } });
  }, 60_000);
});
