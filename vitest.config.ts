import { defineConfig } from 'vitest/config';

/**
 * Two layers, and one property file run again on a second data shape (CONTRIBUTING.md, Tests):
 * - unit: pure functions; no build, no database, no search engine, no child process. Runs in
 *   seconds: `npm run test:unit`.
 * - integration: real Postgres (test/global-setup.ts), the engines when configured, the HTTP
 *   server in-process (test/helpers/http.ts) and the built CLI for the spawned smoke tests:
 *   `npm run test:integration`. `npm test` builds, then runs both.
 * - variants-skewed: the strategies' properties (test/variants.test.ts) on the skewed data shape.
 */
const UNIT = [
  'src/**/*.test.ts',
  // Pure tests of src/ modules that live in test/.
  'test/bench-results.test.ts',
  'test/http-security.test.ts',
  'test/mcp-budget.test.ts',
  'test/searchkick-query.test.ts',
  'test/structure.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT, pool: 'threads', testTimeout: 10_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: UNIT,
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The strategies' properties again on the bench generator's second data shape.
        extends: true,
        test: {
          name: 'variants-skewed',
          include: ['test/variants.test.ts'],
          env: { SEARCHDESK_TEST_SHAPE: 'skewed' },
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
