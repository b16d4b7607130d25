/**
 * searchdesk's stdio MCP server in the test process: the same path as `searchdesk serve --stdio`
 * (loadConfig → createApp → startStdioServer, the token checked at start) with newline-delimited
 * JSON-RPC over a pair of real streams instead of the process's stdin/stdout, and an SDK client
 * on the other end. Log lines are kept in memory as `stderr()`. What needs the built CLI (start-up
 * refusals, exit codes, a clean stdout) stays spawned (helpers/spawn.ts).
 */
import { PassThrough } from 'node:stream';
import { Client, type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startStdioServer } from '../../src/mcp/stdio.js';
import type { StdioSession } from './spawn.js';

export type { StdioSession } from './spawn.js';

/** A client transport speaking the stdio framing over two streams (what StdioClientTransport does over a child's pipes). */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      try {
        for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
      } catch (err) {
        this.onerror?.(err as Error);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  /** Closes the server's stdin, as a client closing the pipe does. */
  close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

/** An SDK client on an in-process stdio server configured by `env` (cliEnv() builds one). */
export async function connectStdio(env: Record<string, string>): Promise<StdioSession> {
  const config = loadConfig(env);
  let log = '';
  const logger = createLogger(config.logLevel, { write: (line: string) => void (log += line) });
  const app = await createApp(config, logger);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let server: Awaited<ReturnType<typeof startStdioServer>>;
  try {
    server = await startStdioServer({ app, logger, stdin, stdout });
  } catch (err) {
    await app.close();
    throw err;
  }
  const client = new Client({ name: 'searchdesk-test', version: '0.0.0' });
  await client.connect(new StreamClientTransport(stdin, stdout));
  let closing: Promise<void> | undefined;
  return {
    client,
    stderr: () => log,
    close() {
      closing ??= (async () => {
        await client.close();
        await server.closed;
        await server.close();
        await app.close();
      })();
      return closing;
    },
  };
}
