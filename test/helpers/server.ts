import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import { loadConfig } from '../../src/config';
import { start, type Portcullis } from '../../src/main';
import { createLogger } from '../../src/log';
import { freshDatabase } from './database';
import { pgliteSeed } from './pglite-seed';

export interface TestServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** PAT of the bootstrap IAM_OWNER machine user */
  pat: string;
  adminPassword: string;
  app: Portcullis;
  /**
   * Connect JSON client over HTTP/1.1 (default) or gRPC over h2c, authenticated with `token`
   * (default: the admin PAT).
   */
  client<S extends DescService>(service: S, opts?: { protocol?: 'connect' | 'grpc'; token?: string | null }): Client<S>;
  /** fetch against the server with the admin PAT unless `Authorization` is given */
  fetch(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * Starts a real server on a random loopback port: PGlite in memory, or a fresh PostgreSQL database
 * when DATABASE_URL is set. Extra settings go in `env` exactly as a user would set them.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const db = await freshDatabase();
  const config = loadConfig({
    PORT: '0',
    PORTCULLIS_HOST: '127.0.0.1',
    PORTCULLIS_DATA_DIR: 'memory://',
    PORTCULLIS_ADMIN_PASSWORD: 'Admin-Passw0rd!',
    PORTCULLIS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORTCULLIS_DB_POOL_SIZE: '5',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...(db.listenUrl ? { DATABASE_LISTEN_URL: db.listenUrl, PORTCULLIS_DB_PREPARED_STATEMENTS: 'false' } : {}),
    ...env,
  });
  const app = await start(config, {
    log: createLogger(config.logLevel),
    pgliteSeed: config.dataDir === 'memory://' ? pgliteSeed() : undefined,
  });
  const port = app.server!.port;
  // The issuer must be the address tests reach; set PORTCULLIS_EXTERNAL_URL yourself to test others.
  if (!env.PORTCULLIS_EXTERNAL_URL) app.config.externalUrl = `http://127.0.0.1:${port}`;
  const url = `http://127.0.0.1:${port}`;
  const pat = app.bootstrap.pat!;
  return {
    url,
    port,
    pat,
    adminPassword: 'Admin-Passw0rd!',
    app,
    client(service, opts = {}) {
      const token = opts.token === undefined ? pat : opts.token;
      const interceptors = token
        ? [
            (next: any) => async (req: any) => {
              req.header.set('Authorization', `Bearer ${token}`);
              return next(req);
            },
          ]
        : [];
      const transport =
        opts.protocol === 'grpc'
          ? createGrpcTransport({ baseUrl: url, interceptors })
          : createConnectTransport({ baseUrl: url, httpVersion: '1.1', interceptors });
      return createClient(service, transport);
    },
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      const token = init.token === undefined ? pat : init.token;
      if (token && !headers.has('authorization')) headers.set('Authorization', `Bearer ${token}`);
      return fetch(url + path, { ...init, headers });
    },
    async stop() {
      await app.stop();
      await db.drop();
    },
  };
}
