import { defineConfig } from 'vitest/config';

// Fast tests run against PGlite, or PostgreSQL when DATABASE_URL is set (each test file gets its
// own fresh database there). Browser tests (test/**/*.browser.test.ts) run in their own project.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // On PGlite, one migrated data directory that every in-memory test server starts from.
    globalSetup: ['test/helpers/pglite-seed.ts'],
    // Three files at a time on any machine: most of a test's time is spent waiting on its servers and
    // databases, and vitest's default (cores - 1) runs one file at a time on two cores.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: ['test/**/*.browser.test.ts'],
          // A worker keeps the modules it loaded from one file to the next instead of evaluating the server's
          // ~600 modules and their dependencies again for every file: the suite takes a quarter of the time.
          // It is safe because every file starts servers of its own and per-server state lives in the runtime
          // each server builds (src/wiring.ts), not in module-level variables.
          isolate: false,
        },
      },
      {
        extends: true,
        // one file at a time (each drives a Chromium of its own), modules kept as in the fast project
        test: { name: 'browser', include: ['test/**/*.browser.test.ts'], fileParallelism: false, isolate: false },
      },
    ],
  },
});
