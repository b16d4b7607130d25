// Writes the README's configuration table and manifest.json's user_config / server env from the
// settings schema in src/config/settings.ts (through src/config-docs.ts), formatted by prettier.
// test/config-docs.test.ts fails when README.md or manifest.json drift from the schema.
// Usage: npm run docs:config            (writes)
//        node scripts/config-docs.mjs --check   (exit 1 when a file is out of step; pack-mcpb.sh runs it)
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

  const check = process.argv.includes('--check');
  const readme = readFileSync('README.md', 'utf8');
  const manifest = readFileSync('manifest.json', 'utf8');
  const wanted = {
    'README.md': await format(docs.withReadmeTable(readme), 'README.md'),
    'manifest.json': await format(JSON.stringify(docs.withManifestConfig(JSON.parse(manifest)), null, 2), 'manifest.json'),
  };
  const current = { 'README.md': readme, 'manifest.json': manifest };
  const stale = Object.keys(wanted).filter((file) => wanted[file] !== current[file]);
  if (check) {
    if (stale.length > 0) {
      process.stderr.write(`${stale.join(' and ')} out of step with src/config/settings.ts: run npm run docs:config\n`);
      process.exitCode = 1;
    }
  } else {
    for (const file of stale) writeFileSync(file, wanted[file]);
    process.stdout.write(stale.length ? `written: ${stale.join(', ')}\n` : 'README.md and manifest.json already in step\n');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
