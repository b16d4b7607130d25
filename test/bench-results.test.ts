/**
 * bench/RESULTS.md is generated (bench/record/render.ts) from bench/results/*.json and
 * bench/DECISIONS.md. These tests keep the checked-in file equal to its rendering, so nobody edits
 * it by hand, and hold it under 400 lines. No database.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DECISIONS_MD, readRecords, RESULTS_DIR, RESULTS_MD, stringifyRecord, writeRecord } from '../bench/record/io.js';
import { renderResults } from '../bench/record/render.js';
import { recordKey, type AnyRecord, type BenchRecord, type CoreRecord } from '../bench/record/types.js';

const records = readRecords(RESULTS_DIR);
const decisions = readFileSync(DECISIONS_MD, 'utf8');
const tables = (md: string) => md.split('\n').filter((l) => l.startsWith('| ---'));

describe('bench/RESULTS.md', () => {
  it('is exactly the rendering of bench/results/*.json and bench/DECISIONS.md (run npm run bench:results)', () => {
    expect(readFileSync(RESULTS_MD, 'utf8')).toBe(renderResults(records, decisions));
  });

  it('stays under 400 lines', () => {
    expect(readFileSync(RESULTS_MD, 'utf8').split('\n').length).toBeLessThan(400);
  });

  it('renders the same text whatever order the records come in', () => {
    const once = renderResults(records, decisions);
    expect(renderResults([...records].reverse(), decisions)).toBe(once);
    expect(renderResults([...records.slice(1), records[0]!], decisions)).toBe(once);
  });

  it('gives a second data shape a column in the same tables, after the default shape of its scale', () => {
    const m = records.find((r): r is BenchRecord => r.tool === 'bench' && r.scale === 'M');
    expect(m).toBeDefined();
    const skewed: BenchRecord = { ...m!, shape: 'skewed' };
    const md = renderResults([...records, skewed], decisions);
    expect(md).toContain('| Target | Limit | M · default | M · skewed | L · default |');
    expect(tables(md)).toHaveLength(tables(renderResults(records, decisions)).length);
  });
});

describe('bench/results/*.json', () => {
  it('are named by their key and say when, on what code and under what load they were measured', () => {
    const files = records.map((r) => `${recordKey(r as AnyRecord & { variant?: string; engine?: string })}.json`);
    expect(new Set(files).size).toBe(records.length);
    for (const r of records) {
      expect(r.shape, recordKey(r)).toMatch(/^[a-z]+$/);
      expect(r.commit, recordKey(r)).toMatch(/^[0-9a-f]{7,}\+?$|^unknown$/);
      expect(Number.isNaN(Date.parse(r.date)), recordKey(r)).toBe(false);
      expect(r.load.start ?? r.load.note, recordKey(r)).toBeDefined();
      expect(r.source, recordKey(r)).not.toBe('');
    }
  });

  it('are written so that JSON.parse gives back the record, one table row to a line', () => {
    for (const r of records) {
      const text = stringifyRecord(r);
      expect(JSON.parse(text)).toEqual(r);
      expect(text.split('\n').every((l) => l.length <= 600)).toBe(true);
    }
  });
});

describe('writeRecord', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("replaces a bench:core file's tools that the new run measured and keeps the others", () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    // A record with messages among its tools (a default variant's has none: messages do not depend on it).
    const core = records.find((r): r is CoreRecord => r.tool === 'core' && r.tools.some((t) => t.tool === 'search_messages'));
    expect(core).toBeDefined();
    writeRecord(core!, dir);
    const messages = { ...core!.tools.find((t) => t.tool === 'search_messages')!, speedup: 9.99, commit: 'abcdef0' };
    writeRecord({ ...core!, commit: 'abcdef0', tools: [messages] }, dir);
    const [after] = readRecords(dir) as CoreRecord[];
    expect(after!.tools.map((t) => t.tool).sort()).toEqual(core!.tools.map((t) => t.tool).sort());
    expect(after!.tools.find((t) => t.tool === 'search_messages')).toMatchObject({ speedup: 9.99, commit: 'abcdef0' });
    expect(after!.tools.find((t) => t.tool === 'search_contacts')).toEqual(core!.tools.find((t) => t.tool === 'search_contacts'));
  });
});
