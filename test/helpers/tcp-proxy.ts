import net from 'node:net';
import { freshDatabase } from './database';
import { startTestServer, type TestServer } from './server';

/** A loopback TCP proxy that a test can cut and restore, to play a database going away. */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and stops listening: the database is "down". */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Listens again on the same port: the database is "back". */
  async restore(): Promise<void> {
    await this.start(this.port);
  }
}

/**
 * Runs `fn` against a test server whose PostgreSQL connection goes through a TcpProxy the test can
 * cut and restore (PostgreSQL only), and cleans up after it.
 */
export async function withServerBehindProxy(fn: (server: TestServer, proxy: TcpProxy) => Promise<void>): Promise<void> {
  const db = await freshDatabase();
  const target = new URL(db.url!);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(db.url!);
  viaProxy.host = `127.0.0.1:${await proxy.start()}`;
  const server = await startTestServer({ DATABASE_URL: viaProxy.toString() });
  try {
    await fn(server, proxy);
  } finally {
    await server.stop();
    await proxy.cut();
    await db.drop();
  }
}
