/**
 * The settings schema (src/config/settings.ts) is the one source of the README's configuration table and
 * the MCP bundle's user_config: when either drifts, this fails — run `npm run docs:config`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { SETTINGS, type Setting } from '../src/config/settings.js';
import { manifestEnv, manifestUserConfig, readmeRows, readmeTableRows } from '../src/config-docs.js';

const readme = readFileSync('README.md', 'utf8');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as {
  user_config: Record<string, unknown>;
  server: { mcp_config: { env: Record<string, string> } };
};
const HINT = 'out of step with src/config/settings.ts: run npm run docs:config';

describe('configuration docs generated from the settings schema', () => {
  it('README.md has exactly the schema’s variables, defaults and meanings, in order', () => {
    expect(readmeTableRows(readme), HINT).toEqual(readmeRows());
    expect(readmeRows()).toHaveLength(Object.keys(SETTINGS).length);
  });

  it('manifest.json user_config and server env are the schema’s bundle fields', () => {
    expect(manifest.user_config, HINT).toStrictEqual(manifestUserConfig());
    expect(Object.keys(manifest.user_config), HINT).toEqual(Object.keys(manifestUserConfig()));
    expect(manifest.server.mcp_config.env, HINT).toStrictEqual(manifestEnv());
  });

  it('every bundle field reaches the config as its variable, unset when left blank', () => {
    for (const [name, s] of Object.entries(SETTINGS) as [string, Setting][]) {
      if (!s.bundle) continue;
      expect(manifest.server.mcp_config.env[name]).toBe(`\${user_config.${s.bundle.key}}`);
    }
    const blank = loadConfig(manifest.server.mcp_config.env);
    expect(blank).toMatchObject({ databaseUrl: undefined, accessToken: undefined, defaultAccountId: undefined });
    expect(blank.engine).toEqual({ kind: 'postgres' });
  });

  it('each secret names the Config key that holds it (the logger redacts both)', () => {
    const env = Object.fromEntries(
      (Object.entries(SETTINGS) as [string, Setting][]).filter(([, s]) => s.secret).map(([name]) => [name, `secret-of-${name}`]),
    );
    const config = loadConfig(env) as unknown as Record<string, unknown>;
    for (const [name, s] of Object.entries(SETTINGS) as [string, Setting][]) {
      if (s.secret) expect(config[s.secret.configKey]).toBe(`secret-of-${name}`);
    }
  });
});
