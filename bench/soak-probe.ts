/**
 * What the soak watches on the server process, from /proc (Linux): resident memory, the sockets it
 * holds, and the TCP connections established to its HTTP port. Plus percentiles of latencies.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessSample {
  /** Seconds since the load started. */
  t: number;
  /** Tool calls finished so far. */
  calls: number;
  rssMb: number;
  /** Every socket the server process holds: listener, HTTP connections, Postgres pool, … */
  sockets: number;
  /** TCP connections in ESTABLISHED state whose local port is the server's HTTP port. */
  httpConnections: number;
  /** Connections to the HTTP port waiting in TIME_WAIT (closed recently: connection churn). */
  timeWait: number;
}

/** Resident set size of `pid` in MB (VmRSS). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Sockets among the open file descriptors of `pid`. */
export function socketCount(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n += 1;
    } catch {
      // closed between listing and reading: not a socket any more
    }
  }
  return n;
}

const ESTABLISHED = '01';
const TIME_WAIT = '06';

/** Counts TCP connections by state whose local port is `port` (IPv4 and IPv6 tables). */
export function tcpStates(port: number): { established: number; timeWait: number } {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let established = 0;
  let timeWait = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || !cols[1]!.endsWith(`:${hexPort}`)) continue;
      if (cols[3] === ESTABLISHED) established += 1;
      else if (cols[3] === TIME_WAIT) timeWait += 1;
    }
  }
  return { established, timeWait };
}

export function sampleProcess(pid: number, port: number, t: number, calls: number): ProcessSample {
  const { established, timeWait } = tcpStates(port);
  return { t, calls, rssMb: rssMb(pid), sockets: socketCount(pid), httpConnections: established, timeWait };
}

/** The p-th percentile (0–100) of `values` (nearest rank), in the values' unit. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
