/**
 * Runs vitest with every test server behind a private PgBouncer in transaction mode:
 * `DATABASE_URL=postgres://…/db npx tsx test/helpers/with-pgbouncer.ts [vitest arguments]` (`npm run
 * test:pgbouncer`); without test files it runs the OIDC and API smoke set below. Each test's fresh
 * database is still made directly on DATABASE_URL; the servers reach it through PgBouncer, with prepared
 * statements and pipelining off and LISTEN on a direct connection, as docs/postgresql.md tells operators to run.
 */
import { spawn } from 'node:child_process';
import { startPgBouncer } from './pgbouncer';

/** Sign-in, tokens, revocation, caches across two processes, and the v2 resources' everyday calls. */
const SMOKE = [
  'test/oidc/code-flow.test.ts',
  'test/oidc/introspect-revoke-logout.test.ts',
  'test/oidc/token-cache.test.ts',
  'test/oidc/replicas.test.ts',
  'test/oidc/m2m/client-credentials.test.ts',
  'test/oidc/discovery-keys.test.ts',
  'test/api/user/create.test.ts',
  'test/api/user/lifecycle.test.ts',
  'test/api/user/credentials.test.ts',
  'test/api/user/permissions.test.ts',
  'test/api/org/organizations.test.ts',
  'test/api/project/projects.test.ts',
  'test/api/project/concurrency.test.ts',
  'test/api/application/application.test.ts',
  'test/api/authorization/authorizations.test.ts',
  'test/api/event/events.test.ts',
  'test/api/pagination.test.ts',
];

const direct = process.env.DATABASE_URL;
if (!direct) {
  console.error('with-pgbouncer: set DATABASE_URL to the PostgreSQL that PgBouncer should front');
  process.exit(2);
}
const upstream = new URL(direct);
const bouncer = await startPgBouncer(Number(upstream.port || 5432));
const pooler = new URL(direct);
pooler.port = String(bouncer.port);
const args = process.argv.slice(2);
const files = args.some((a) => a.startsWith('test/')) ? [] : SMOKE;
const child = spawn('npx', ['vitest', 'run', ...args, ...files], {
  stdio: 'inherit',
  env: { ...process.env, TEST_POOLER_URL: pooler.toString() },
});
const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
await bouncer.stop();
process.exit(code);
