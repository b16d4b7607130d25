/** Indexing progress on stderr: a bar on a terminal, plain lines otherwise (logs, CI). */

export interface Progress {
  start(label: string, total: number): void;
  advance(n: number): void;
  finish(): void;
}

export interface ProgressStream {
  write(s: string): unknown;
  isTTY?: boolean;
}

const WIDTH = 30;

export function createProgress(stream: ProgressStream, opts: { now?: () => number; lineEveryMs?: number } = {}): Progress {
  const now = opts.now ?? (() => performance.now());
  const lineEvery = opts.lineEveryMs ?? 5_000;
  let label = '';
  let total = 0;
  let done = 0;
  let started = 0;
  let lastLine = 0;

  const rate = () => {
    const s = (now() - started) / 1000;
    return s > 0 ? Math.round(done / s) : 0;
  };
  const render = () => {
    const pct = total > 0 ? Math.min(1, done / total) : 1;
    if (stream.isTTY) {
      const filled = Math.round(pct * WIDTH);
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${(pct * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} ${rate().toLocaleString('en')} docs/s`,
      );
    } else {
      stream.write(`${label}: ${done}/${total} (${(pct * 100).toFixed(0)}%) ${rate()} docs/s\n`);
    }
  };

  return {
    start(l, t) {
      label = l;
      total = t;
      done = 0;
      started = now();
      lastLine = started;
      if (stream.isTTY) render();
    },
    advance(n) {
      done += n;
      if (stream.isTTY || now() - lastLine >= lineEvery) {
        lastLine = now();
        render();
      }
    },
    finish() {
      render();
      if (stream.isTTY) stream.write('\n');
    },
  };
}

/** A Progress that prints nothing (tests, --quiet). */
export const silentProgress: Progress = { start() {}, advance() {}, finish() {} };
