// Writes the README's configuration table and manifest.json's user_config / server env from the
// settings schema in src/config.ts (through src/config-docs.ts), formatted by prettier.
// test/config-docs.test.ts fails when README.md or manifest.json drift from the schema.
// Usage: npm run docs:config
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import * as prettier from 'prettier';

const root = fileURLToPath(new globalThis.URL('..', import.meta.url));
process.chdir(root);

const dir = mkdtempSync(join(tmpdir(), 'sd-config-docs-'));
const outfile = join(dir, 'config-docs.mjs');
try {
  await build({
    entryPoints: ['src/config-docs.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const docs = await import(pathToFileURL(outfile).href);

  const format = async (text, filepath) => prettier.format(text, { ...(await prettier.resolveConfig(filepath)), filepath });

  const readme = readFileSync('README.md', 'utf8');
  writeFileSync('README.md', await format(docs.withReadmeTable(readme), 'README.md'));

  const manifest = JSON.parse(readFileSync('manifest.json', 'utf8'));
  writeFileSync('manifest.json', await format(JSON.stringify(docs.withManifestConfig(manifest), null, 2), 'manifest.json'));
  process.stdout.write('README.md (configuration table) and manifest.json (user_config, server env) written\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
