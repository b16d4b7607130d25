// The release build: src/cli.ts → an ESM bundle in dist/ (dist/cli.js and lazily loaded chunks),
// with source maps, the tools' JSON Schemas computed here (dist/tools.json, inlined), and the
// SQL assets. Why: a start that resolves and evaluates a few files instead of hundreds, and does
// not build zod schemas to answer tools/list (README, Development).
// Usage: node scripts/build.mjs
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new globalThis.URL('..', import.meta.url));
process.chdir(root);
const out = 'dist';

/**
 * Loaded from node_modules at run time, not bundled: optional (pg-native), shipped with their own
 * files (PGlite's WASM), or large and loaded only when configured (search-engine clients).
 */
const external = ['pg-native', '@electric-sql/pglite', '@elastic/elasticsearch', '@opensearch-project/opensearch'];

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  format: 'esm',
  external,
  logLevel: 'warning',
  legalComments: 'none',
  // Smaller to read and compile at start; identifiers stay, so stack traces keep their names.
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundled CommonJS packages (pg, pino) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __sdCreateRequire } from 'node:module';\nconst require = __sdCreateRequire(import.meta.url);",
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// 1. The tools/list answer, from toolDefs (src/mcp/tools.ts stays the single source of truth).
const generator = join(out, '.tool-list.gen.mjs');
await build({ ...common, entryPoints: ['src/mcp/tool-list.ts'], outfile: generator, sourcemap: false });
const { TOOL_LIST } = await import(pathToFileURL(join(root, generator)).href);
rmSync(generator);
const toolsJson = JSON.stringify(TOOL_LIST);
writeFileSync(join(out, 'tools.json'), `${JSON.stringify(TOOL_LIST, null, 2)}\n`);

/** The bundle's tool-list.ts is the JSON computed above, so zod→JSON Schema never runs at start. */
const prebuiltToolList = {
  name: 'prebuilt-tool-list',
  setup(b) {
    b.onResolve({ filter: /\/tool-list\.js$/ }, () => ({ path: 'tool-list', namespace: 'prebuilt' }));
    b.onLoad({ filter: /^tool-list$/, namespace: 'prebuilt' }, () => ({
      contents: `export const TOOL_LIST = ${toolsJson};`,
      loader: 'js',
    }));
  },
};

/**
 * pg decides at load whether it runs in a Cloudflare Worker by constructing a fetch `Response`,
 * which on Node 20 loads undici (~15 ms of every start). The bundle targets Node only.
 */
const pgNodeOnly = {
  name: 'pg-node-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const patched = source.replace('if (isCloudflareRuntime()) {', 'if (false) {');
      if (patched === source) throw new Error(`pg-node-only: the runtime check moved in ${args.path}`);
      return { contents: patched, loader: 'js' };
    });
  },
};

/**
 * zod re-exports every locale as `z.locales` (about 300 kB of the ~580 kB it adds to the bundle,
 * compiled at every start: zod is loaded by the configuration). searchdesk's messages are its own
 * and English; zod's English messages are imported by zod directly, not through this index.
 * In the bundle `z.locales` is empty.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * The MCP SDK's server (the 2026-07-28 chunk, src/mcp/modern.ts) validates JSON Schema only for
 * elicitation, asking the client for input, which searchdesk never does. Its Node default
 * validator is Ajv, about 300 kB of the chunk, evaluated when it loads; in the bundle the
 * default validator refuses instead.
 */
const sdkWithoutAjv = {
  name: 'sdk-without-ajv',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: 'shims', namespace: 'sdk-without-ajv' }));
    b.onLoad({ filter: /.*/, namespace: 'sdk-without-ajv' }, () => ({
      contents: [
        "import process from 'node:process';",
        'export class DefaultJsonSchemaValidator {',
        "  getValidator() { throw new Error('searchdesk asks a client for no input: there is no JSON Schema to validate'); }",
        '}',
        'export { process };',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

// 2. The SDK's answers to a 2026-07-28 server/discover and tools/list (src/mcp/discovery-answers.ts),
// computed by running the SDK once here, so a 2026-07-28 client over stdio gets them while it loads.
// In dist/gen/ so that the module finds ../../package.json as it does from src/mcp/.
const discoveryGenerator = join(out, 'gen', 'discovery.js');
await build({
  ...common,
  entryPoints: { discovery: 'src/mcp/discovery-answers.ts' },
  outdir: join(out, 'gen'),
  splitting: true,
  sourcemap: false,
  plugins: [prebuiltToolList, zodEnglishOnly, sdkWithoutAjv],
});
const { DISCOVERY_ANSWERS } = await import(pathToFileURL(join(root, discoveryGenerator)).href);
rmSync(join(out, 'gen'), { recursive: true });
const discoveryJson = JSON.stringify(DISCOVERY_ANSWERS);

/** The bundle's discovery-answers.ts is the JSON computed above. */
const prebuiltDiscovery = {
  name: 'prebuilt-discovery',
  setup(b) {
    b.onResolve({ filter: /\/discovery-answers\.js$/ }, () => ({ path: 'discovery-answers', namespace: 'prebuilt' }));
    b.onLoad({ filter: /^discovery-answers$/, namespace: 'prebuilt' }, () => ({
      contents: `export const DISCOVERY_ANSWERS = ${discoveryJson};`,
      loader: 'js',
    }));
  },
};

// 3. The CLI: one entry, commands and heavy modules in chunks loaded on demand.
await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: out,
  splitting: true,
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  sourcesContent: false,
  plugins: [prebuiltToolList, prebuiltDiscovery, pgNodeOnly, zodEnglishOnly, sdkWithoutAjv],
});

// 4. Assets next to the chunks that read them (src/db/schema.ts: ./sql/schema.sql).
cpSync('src/db/sql', join(out, 'sql'), { recursive: true });
