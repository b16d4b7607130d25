// Copies non-TypeScript assets (SQL files) next to the compiled JavaScript.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const from = 'src/db/sql';
const to = 'dist/db/sql';
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from)) cpSync(join(from, file), join(to, file));
