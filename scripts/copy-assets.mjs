// Copies non-TypeScript assets (SQL files) next to the compiled JavaScript.
// Usage: node scripts/copy-assets.mjs [target]   (default dist/db/sql)
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const from = 'src/db/sql';
const to = process.argv[2] ?? 'dist/db/sql';
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from)) cpSync(join(from, file), join(to, file));
