/**
 * `npm run bench:results [-- --check]`: renders bench/RESULTS.md from bench/results/*.json and
 * bench/DECISIONS.md (bench/record/). With `--check`, writes nothing and exits 1 when the file on
 * disk differs from the rendering. `npm run bench`, `bench:core` and `bench:triage` call
 * `updateResults` themselves after writing their record.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECISIONS_MD, readRecords, RESULTS_DIR, RESULTS_MD, ROOT } from './record/io.js';
import { renderResults } from './record/render.js';

/** The rendering of the files on disk. */
export function renderedResults(): string {
  return renderResults(readRecords(RESULTS_DIR), readFileSync(DECISIONS_MD, 'utf8'));
}

/** Writes bench/RESULTS.md from the records on disk; returns its path relative to the repository. */
export function updateResults(): string {
  writeFileSync(RESULTS_MD, renderedResults());
  return relative(ROOT, RESULTS_MD);
}

function main(argv: string[]): number {
  if (argv.includes('--check')) {
    const same = existsSync(RESULTS_MD) && readFileSync(RESULTS_MD, 'utf8') === renderedResults();
    process.stderr.write(same ? 'bench/RESULTS.md is up to date\n' : 'bench/RESULTS.md differs: run npm run bench:results\n');
    return same ? 0 : 1;
  }
  process.stderr.write(`${updateResults()} written\n`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
