/**
 * Reading and writing bench/results/*.json (types.ts), and what every record needs from the
 * machine: the commit measured and `uptime`'s load. Rendering is render.ts; the CLI that
 * regenerates bench/RESULTS.md is bench/results.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordKey, RECORD_SCHEMA, type AnyRecord, type CoreRecord, type Load } from './types.js';

/** The repository root, from bench/record/ (source) or dist-bench/bench/record/ (built). */
export const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist-bench/') ? '../../../' : '../../', import.meta.url));
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const RESULTS_MD = join(ROOT, 'bench', 'RESULTS.md');
export const DECISIONS_MD = join(ROOT, 'bench', 'DECISIONS.md');

const WIDTH = 200;

/**
 * JSON with every object or list that fits on one line written on one line, so that a table row
 * is one line of the file: easy to read in a diff and to add by hand.
 */
export function stringifyRecord(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined) return 'null';
  if (value === null || typeof value !== 'object' || indent.length + flat.length <= WIDTH) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + stringifyRecord(v, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${stringifyRecord(v, inner)}`).join(',\n')}\n${indent}}`;
}

/** Every record in `dir`, in file-name order. */
export function readRecords(dir = RESULTS_DIR): AnyRecord[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { schema?: unknown };
      if (r.schema !== RECORD_SCHEMA) throw new Error(`${f}: schema ${JSON.stringify(r.schema)}, expected ${RECORD_SCHEMA}`);
      return r as AnyRecord;
    });
}

/**
 * Writes `record` as `<key>.json`, replacing an earlier run of the same key. A bench:core record
 * keeps the tools of the earlier file that this run did not measure.
 */
export function writeRecord(record: AnyRecord, dir = RESULTS_DIR): string {
  const file = join(dir, `${recordKey(record)}.json`);
  let out = record;
  if (record.tool === 'core' && existsSync(file)) {
    const before = JSON.parse(readFileSync(file, 'utf8')) as CoreRecord;
    const ran = new Set(record.tools.map((t) => t.tool));
    out = { ...record, tools: [...before.tools.filter((t) => !ran.has(t.tool)), ...record.tools] };
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${stringifyRecord(out)}\n`);
  return file;
}

/** The short hash of HEAD, with `+` when the work tree has changes; "unknown" outside git. */
export function currentCommit(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** `uptime`'s three load averages now, two decimals. */
export function loadNow(): NonNullable<Load['start']> {
  const [a = 0, b = 0, c = 0] = loadavg().map((v) => Math.round(v * 100) / 100);
  return [a, b, c];
}
