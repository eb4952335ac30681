import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { cors as connectCors, createConnectRouter } from '@connectrpc/connect';
import { getRequestListener } from '@hono/node-server';
import { connectAdapter } from './api/node-adapter';
import { routes } from './api/router';
import { authInterceptor } from './api/interceptors/auth';
import { errorInterceptor } from './api/interceptors/errors';
import { inputGuardInterceptor } from './api/interceptors/input-guard';
import { metricsInterceptor } from './api/interceptors/metrics';
import { readRoutingInterceptor } from './api/interceptors/read-routing';
import type { Deps } from './deps';
import { createHttpApp } from './http/app';
import { dbPoolMax, httpDuration } from './http/metrics';

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), closes connections. */
  close(): Promise<void>;
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * One listener for everything. Plaintext: each connection's first bytes decide between HTTP/1.1 and
 * HTTP/2 with prior knowledge (h2c, what gRPC clients speak). TLS: ALPN decides. Connect handles the
 * v2 procedures; whatever it does not know goes to the Hono app.
 */
export async function startServer(deps: Deps): Promise<RunningServer> {
  const { config, log } = deps;
  dbPoolMax.set(deps.database.kind === 'pglite' ? 1 : config.dbPoolSize);
  const honoApp = createHttpApp(deps);
  const hono = getRequestListener(honoApp.fetch);
  const connect = connectAdapter({
    routes: routes(deps),
    interceptors: [
      metricsInterceptor(),
      errorInterceptor(log),
      inputGuardInterceptor(),
      authInterceptor(deps),
      readRoutingInterceptor(deps),
    ],
    readMaxBytes: 4 * 1024 * 1024,
    fallback: (req, res) => (answerUnknownRpc(req, res as any) ? undefined : void hono(req as any, res as any)),
  });

  const procedures = procedurePaths(deps);
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  const corsOrigins = new Set(config.corsOrigins);

  const handler = (req: Req, res: Res) => {
    const started = process.hrtime.bigint();
    const requestId = (req.headers['x-request-id'] as string | undefined)?.slice(0, 128) || randomUUID();
    res.setHeader('X-Request-Id', requestId);
    if (draining && 'shouldKeepAlive' in res) res.setHeader('Connection', 'close');
    inFlight++;
    res.once('close', () => {
      inFlight--;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Label values come from closed sets only (Hono route patterns, registered procedures), so
      // no traffic can grow the number of series: everything else is "unmatched".
      const path = req.url?.split('?')[0] ?? '';
      const route = (res as any).routeLabel ?? (procedures.has(path) ? path : 'unmatched');
      httpDuration.observe({ route, method: req.method ?? '', status: String(res.statusCode) }, seconds);
      log.info(
        {
          reqId: requestId,
          method: req.method,
          path: req.url?.split('?')[0],
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
      if (draining && inFlight === 0) drained?.();
    });
    const origin = req.headers.origin;
    if (origin && corsOrigins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', connectCors.exposedHeaders.join(', '));
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', connectCors.allowedMethods.join(', '));
        // DPoP: a browser client presents a DPoP-bound token with its proof header (RFC 9449 §7)
        res.setHeader(
          'Access-Control-Allow-Headers',
          [...connectCors.allowedHeaders, 'Authorization', 'DPoP'].join(', '),
        );
        res.setHeader('Access-Control-Max-Age', '7200');
        res.statusCode = 204;
        res.end();
        return;
      }
    }
    connect(req as any, res as any);
  };

  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.Http2Session>();
  let listener: net.Server;
  let h1: http.Server | undefined;
  let h2: http2.Http2Server | http2.Http2SecureServer;

  if (config.tlsCert && config.tlsKey) {
    h2 = http2.createSecureServer(
      { allowHTTP1: true, cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey) },
      handler as any,
    );
    listener = h2 as unknown as net.Server;
    listener.on('connection', (s: net.Socket) => track(sockets, s));
  } else {
    h1 = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, handler as any);
    h2 = http2.createServer({}, handler as any);
    listener = net.createServer((socket) => {
      track(sockets, socket);
      sniff(socket, (isH2) => (isH2 ? h2 : h1!).emit('connection', socket));
    });
  }
  h2.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(config.port, config.host, () => resolve());
  });
  const port = (listener.address() as net.AddressInfo).port;

  return {
    port,
    url: `${config.tlsCert ? 'https' : 'http'}://127.0.0.1:${port}`,
    async close() {
      draining = true;
      listener.close();
      for (const s of sessions) s.close();
      h1?.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, config.shutdownTimeoutMs).unref();
        });
      }
      h1?.closeIdleConnections();
      for (const s of sessions) s.destroy();
      for (const s of sockets) s.destroy();
    },
  };
}

/** The request paths of every registered RPC (`/<package.Service>/<Method>`). */
function procedurePaths(deps: Deps): Set<string> {
  const router = createConnectRouter();
  routes(deps)(router);
  return new Set(router.handlers.map((h) => h.requestPath));
}

function track(sockets: Set<net.Socket>, socket: net.Socket) {
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
}

/** Reads just enough of a new connection to tell the HTTP/2 preface from an HTTP/1.x request line. */
function sniff(socket: net.Socket, done: (isH2: boolean) => void) {
  let seen = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const n = Math.min(seen.length, H2_PREFACE.length);
    const prefixMatches = seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
    if (prefixMatches && seen.length < H2_PREFACE.length) return;
    socket.off('data', onData);
    socket.off('error', onError);
    socket.pause();
    socket.unshift(seen);
    // Both servers pick up the unshifted bytes: http.Server reads the stream, and an HTTP/2 session
    // drains what is already buffered on the socket before it takes over the handle.
    done(prefixMatches);
    if (!prefixMatches) socket.resume();
  };
  const onError = () => socket.destroy();
  socket.on('data', onData);
  socket.on('error', onError);
}

const RPC_PATH = /^\/[a-z][\w.]*\.[A-Z]\w*\/\w+$/;

/**
 * A method this server does not have answers in the protocol of the caller: gRPC and gRPC-web get
 * `unimplemented` (grpc-status 12) in a trailers-only response, Connect gets its JSON error with
 * code `unimplemented` — never the HTTP routes' JSON 404 that a gRPC client cannot read.
 * Returns false for requests that are not RPCs (the Hono routes take them).
 */
function answerUnknownRpc(
  req: { url?: string; headers: Record<string, string | string[] | undefined> },
  res: { writeHead(status: number, headers: Record<string, string>): unknown; end(body?: string): unknown },
): boolean {
  const path = (req.url ?? '').split('?')[0];
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  const message = `${path} is not a method of this server`;
  if (type.startsWith('application/grpc')) {
    const headers = {
      'content-type': type.startsWith('application/grpc-web') ? type.split(';')[0] : 'application/grpc',
      'grpc-status': '12',
      'grpc-message': encodeURIComponent(message),
    };
    // Over HTTP/2 the status must come in a HEADERS frame that ends the stream (trailers-only): a
    // writeHead() and end() send the headers, then an empty DATA frame ends the stream, and gRPC
    // clients read that as response headers without trailers (grpc-go: "server closed the stream
    // without sending trailers", code Internal).
    const stream = (res as { stream?: http2.ServerHttp2Stream }).stream;
    if (stream && !stream.headersSent) stream.respond({ ':status': 200, ...headers }, { endStream: true });
    else {
      res.writeHead(200, headers);
      res.end();
    }
    return true;
  }
  if (
    RPC_PATH.test(path) &&
    (type.startsWith('application/json') ||
      type.startsWith('application/proto') ||
      type.startsWith('application/connect+'))
  ) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'unimplemented', message }));
    return true;
  }
  return false;
}
