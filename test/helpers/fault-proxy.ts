/**
 * The one TCP proxy that misbehaves on demand, for fault tests against real servers (Postgres,
 * Elasticsearch, OpenSearch), so the shared servers other test files use are never stopped:
 * `cut()` makes the server unreachable (open connections die, new ones are refused) and
 * `restore()` brings it back on the same port; `delay(ms)` holds every chunk from the server for
 * `ms` before passing it on (a slow search engine), `hold()` forwards nothing in either direction
 * while keeping connections open (a network that hangs without a reset), `pass()` goes back to
 * normal and delivers what was held, in order.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

type Mode = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'hold' };

/** One direction of one connection: chunks leave in order, each no earlier than its release time. */
class Pipe {
  private readonly queue: Array<{ chunk: Buffer; at: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: Socket,
    private readonly mode: () => Mode,
    /** Whether `delay` applies to this direction (only server → client is slowed). */
    private readonly delayed: boolean,
  ) {}

  push(chunk: Buffer): void {
    const mode = this.mode();
    const wait = mode.kind === 'delay' && this.delayed ? mode.ms : 0;
    this.queue.push({ chunk, at: Date.now() + wait });
    this.flush();
  }

  flush(): void {
    if (this.timer) return;
    while (this.queue.length > 0) {
      if (this.mode().kind === 'hold') return; // pass() flushes again
      const next = this.queue[0]!;
      const wait = next.at - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, wait);
        return;
      }
      this.queue.shift();
      if (!this.to.destroyed) this.to.write(next.chunk);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

export class FaultProxy {
  private server: Server | undefined;
  private mode: Mode = { kind: 'pass' };
  private readonly pipes = new Set<Pipe>();
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A proxy in front of the host and port of `url`. */
  static for(url: string): FaultProxy {
    const u = new URL(url);
    const port =
      u.port || (u.protocol === 'postgres:' || u.protocol === 'postgresql:' ? 5432 : u.protocol === 'https:' ? 443 : 80);
    return new FaultProxy(u.hostname, Number(port));
  }

  /** Listens (on a free port the first time, then on the same one again after cut()). */
  start(): Promise<void> {
    return this.restore();
  }

  /** Listens again on the same port, forwarding normally. */
  async restore(): Promise<void> {
    if (this.server) return;
    this.mode = { kind: 'pass' };
    const server = createServer((inbound) => {
      const outbound = connect(this.targetPort, this.targetHost);
      const up = new Pipe(outbound, () => this.mode, false);
      const down = new Pipe(inbound, () => this.mode, true);
      for (const pipe of [up, down]) this.pipes.add(pipe);
      inbound.on('data', (d: Buffer) => up.push(d));
      outbound.on('data', (d: Buffer) => down.push(d));
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('error', () => s.destroy());
        s.on('close', () => {
          this.sockets.delete(s);
          up.stop();
          down.stop();
          this.pipes.delete(up);
          this.pipes.delete(down);
          inbound.destroy();
          outbound.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Every chunk from the server reaches the client `ms` later than it arrived. */
  delay(ms: number): void {
    this.mode = { kind: 'delay', ms };
  }

  /** Nothing gets through, in either direction; connections stay open. */
  hold(): void {
    this.mode = { kind: 'hold' };
  }

  /** Normal forwarding; whatever was held is delivered now, in order. */
  pass(): void {
    this.mode = { kind: 'pass' };
    for (const pipe of this.pipes) pipe.flush();
  }

  /** Open client and server sockets. */
  get connections(): number {
    return this.sockets.size;
  }

  /** `url` with host and port replaced by the proxy's. */
  proxied(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** The server is gone: open connections die, new ones are refused. restore() brings it back. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops for good (the same as cut(); for afterAll hooks). */
  close(): Promise<void> {
    return this.cut();
  }
}
