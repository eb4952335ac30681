import { randomBytes } from 'node:crypto';
import { freePort, runCli, waitFor } from './process';
import { startTestServer, type TestServer } from './server';

/**
 * Two replicas of one installation: a test server on a fresh PostgreSQL database (or the DATABASE_URL in
 * `env`), and a second `portcullis start` process on the same database, issuer and master key (as a
 * deployment runs them). Both get the settings of `env`.
 */
export async function startTwoReplicas(
  env: Record<string, string> = {},
): Promise<{ one: TestServer; twoUrl: string; stop: () => Promise<void> }> {
  const masterKey = randomBytes(32).toString('base64');
  const one = await startTestServer({ PORTCULLIS_MASTER_KEY: masterKey, ...env });
  const port = await freePort();
  const twoUrl = `http://127.0.0.1:${port}`;
  const two = runCli(['start'], {
    ...env,
    DATABASE_URL: one.app.config.databaseUrl,
    PORT: String(port),
    PORTCULLIS_HOST: '127.0.0.1',
    PORTCULLIS_EXTERNAL_URL: one.url,
    PORTCULLIS_DATA_DIR: 'memory://',
    PORTCULLIS_MASTER_KEY: masterKey,
    PORTCULLIS_WORKERS: '1',
    // behind a pooler (test/helpers/with-pgbouncer.ts) the second replica is set up as the first
    ...(one.app.config.databaseListenUrl
      ? { DATABASE_LISTEN_URL: one.app.config.databaseListenUrl, PORTCULLIS_DB_PREPARED_STATEMENTS: 'false' }
      : {}),
  });
  const stop = async () => {
    two.child.kill('SIGTERM');
    await two.exited;
    await one.stop();
  };
  try {
    await waitFor(async () => (await fetch(`${twoUrl}/readyz`)).ok, 60_000, 'second replica ready');
  } catch (err) {
    await stop();
    throw err;
  }
  return { one, twoUrl, stop };
}
