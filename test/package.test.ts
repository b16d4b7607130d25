/**
 * The published package (issue 51, part 4): its runtime dependencies are exactly what the bundle
 * in dist/ loads from node_modules (esbuild bundles the rest, which are development dependencies),
 * and the MCP registry's server.json names the package as package.json does. Needs `npm run build`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET_ENV, SETTINGS } from '../src/config/settings.js';
import { assertBuilt, CLI } from './helpers/spawn.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  name: string;
  version: string;
  mcpName: string;
  files: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const server = JSON.parse(readFileSync('server.json', 'utf8')) as {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: Array<{
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    environmentVariables: Array<{ name: string; isSecret?: boolean }>;
  }>;
};

/** Loaded by pg only when installed (`require('pg-native')` in a try): never a dependency. */
const OPTIONAL = new Set(['pg-native']);
const BUILTIN = new Set(builtinModules);

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a built-in or a path. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTIN.has(name) ? undefined : name;
}

/** Every package the bundle imports or requires from node_modules at run time. */
function bundleImports(): Set<string> {
  assertBuilt();
  const dist = join(CLI, '..');
  const found = new Set<string>();
  // Minified ESM: `from"x"`, `import("x")`, `import"x"`; the CommonJS inside: `require("x")` (`__require`).
  const pattern = /(?:\bfrom|\bimport\(?|require\()\s*"((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w./-]*)?)"/g;
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.js'))) {
    for (const match of readFileSync(join(dist, file), 'utf8').matchAll(pattern)) {
      const name = packageOf(match[1]!);
      if (name) found.add(name);
    }
  }
  return found;
}

describe('package.json', () => {
  it('depends at run time on exactly the packages the bundle loads from node_modules', () => {
    const loaded = [...bundleImports()].filter((name) => !OPTIONAL.has(name)).sort();
    expect(loaded).toEqual(Object.keys(pkg.dependencies).sort());
    for (const name of OPTIONAL) expect(pkg.dependencies).not.toHaveProperty(name);
  });

  it('keeps what esbuild bundles among the development dependencies', () => {
    for (const name of ['pg', 'pino', 'zod', 'prom-client', 'rate-limiter-flexible', 'entities'])
      expect(pkg.devDependencies, name).toHaveProperty(name);
  });

  it('ships server.json for the MCP registry', () => {
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'server.json', 'README.md']));
  });
});

describe('server.json (MCP registry)', () => {
  it('names the npm package of this version, over stdio, under the mcpName of package.json', () => {
    expect(server.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/[\d-]+\/server\.schema\.json$/);
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name).toMatch(/^io\.github\.[\w-]+\/searchdesk$/);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    // The registry's limit on a description.
    expect(server.description.length).toBeLessThanOrEqual(100);
  });

  it('lists only settings searchdesk reads, secret exactly when the settings say so', () => {
    for (const variable of server.packages[0]!.environmentVariables) {
      expect(Object.keys(SETTINGS), variable.name).toContain(variable.name);
      expect(variable.isSecret ?? false, variable.name).toBe((SECRET_ENV as string[]).includes(variable.name));
    }
  });
});
