/**
 * A minimal HTTP/1.1 client for measuring the server's own per-call cost: one keep-alive
 * connection, one request at a time, the request written in one piece (headers and body), the
 * response read by its Content-Length (the server always sends one). Next to it, `fetch`
 * (undici) spends about half a millisecond per request of its own on this machine kind — client
 * work a server cannot remove, which the bench shows apart (GET /healthz through both clients).
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  body: string;
}

export class RawHttp {
  private socket?: net.Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private pending?: { resolve: (r: RawResponse) => void; reject: (e: Error) => void };

  constructor(private readonly base: URL) {}

  private async connect(): Promise<net.Socket> {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect(Number(this.base.port), this.base.hostname);
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.parse();
    });
    const fail = (err: Error) => {
      this.socket = undefined;
      this.buffer = Buffer.alloc(0);
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
    this.socket = socket;
    return socket;
  }

  private parse(): void {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0 || !this.pending) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.pending.reject(new Error(`response without Content-Length: ${head.split('\r\n')[0]}`));
      this.pending = undefined;
      return;
    }
    const total = end + 4 + Number(length[1]);
    if (this.buffer.length < total) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffer.subarray(end + 4, total).toString('utf8');
    this.buffer = this.buffer.subarray(total);
    const p = this.pending;
    this.pending = undefined;
    p.resolve({ status, body });
  }

  async request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    const socket = await this.connect();
    const lines = [`${method} ${path} HTTP/1.1`, `host: ${this.base.host}`];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
    const text = `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
    return new Promise<RawResponse>((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(text);
    });
  }

  close(): void {
    this.socket?.end();
  }
}
