import net from 'node:net';
import { freshDatabase } from './database';
import { startTestServer, type TestServer } from './server';

/** One client connection and its connection to the target. */
interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

/**
 * A loopback TCP proxy that a test can cut and restore, to play a database going away, or freeze and
 * thaw, to play one that stops answering while its connections stay open.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly pairs = new Set<Pair>();
  private frozen = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => {
      const pair = { client, upstream: net.connect(this.targetPort, this.targetHost) };
      this.pairs.add(pair);
      for (const s of [client, pair.upstream]) {
        s.once('close', () => {
          // A silent host does not hear its client go away: the other side is closed at the thaw.
          if (this.frozen) return;
          this.pairs.delete(pair);
          client.destroy();
          pair.upstream.destroy();
        });
        s.on('error', () => s.destroy());
      }
      if (this.frozen) pause(pair);
      else forward(pair);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every connection and stops listening: the database is "down". */
  async cut(): Promise<void> {
    this.frozen = false;
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Listens again on the same port: the database is "back". */
  async restore(): Promise<void> {
    await this.start(this.port);
  }

  /**
   * Keeps every connection open and accepts new ones, but forwards no byte in either direction: the
   * database host went silent (TCP still takes the bytes, nothing comes back).
   */
  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) pause(pair);
  }

  /**
   * Forwards again what was held back. A connection its client closed meanwhile is closed towards the
   * target now, as a host that is reachable again learns of it.
   */
  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) {
      if (pair.client.destroyed || pair.upstream.destroyed) {
        this.pairs.delete(pair);
        pair.client.destroy();
        pair.upstream.destroy();
      } else forward(pair);
    }
  }
}

function forward({ client, upstream }: Pair): void {
  client.pipe(upstream);
  upstream.pipe(client);
}

function pause({ client, upstream }: Pair): void {
  client.unpipe(upstream);
  upstream.unpipe(client);
  client.pause();
  upstream.pause();
}

/**
 * Runs `fn` against a test server (with `env` added to its settings) whose PostgreSQL connection goes
 * through a TcpProxy the test can cut and restore or freeze and thaw (PostgreSQL only), and cleans up
 * after it. `fn` also gets the database's own URL, past the proxy.
 */
export async function withServerBehindProxy(
  fn: (server: TestServer, proxy: TcpProxy, directUrl: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const db = await freshDatabase();
  const target = new URL(db.url!);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(db.url!);
  viaProxy.host = `127.0.0.1:${await proxy.start()}`;
  const server = await startTestServer({ ...env, DATABASE_URL: viaProxy.toString() });
  try {
    await fn(server, proxy, db.url!);
  } finally {
    await server.stop();
    await proxy.cut();
    await db.drop();
  }
}
