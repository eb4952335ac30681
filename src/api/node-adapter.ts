import type http from 'node:http';
import type http2 from 'node:http2';
import {
  Code,
  type ConnectRouter,
  type ConnectRouterOptions,
  ConnectError,
  createConnectRouter,
} from '@connectrpc/connect';
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from '@connectrpc/connect-node';
import { createAsyncIterable } from '@connectrpc/connect/protocol';

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

export interface AdapterOptions extends ConnectRouterOptions {
  routes(router: ConnectRouter): void;
  fallback(req: Req, res: Res): void;
}

/** The largest unary body read here in one piece; larger ones stream through Connect as before. */
const PRE_READ_MAX_BYTES = 64 * 1024;

/**
 * connect-node's `connectNodeAdapter`, built from the same public parts (its router, and its
 * conversions between Node.js requests and Connect's), with one difference. connect-node hands every
 * request body to Connect as an async iterable of the socket's chunks, which Connect drains through
 * async generators before it parses a unary message; that machinery cost more CPU than the rest of a
 * cached GetInstance call's reading (npm run bench -- memory, perf). A unary Connect request (POST,
 * `application/json` or `application/proto`) whose body is uncompressed and announced by a
 * Content-Length of at most 64 KiB is read here in one piece instead and handed over as bytes, the
 * form Connect itself accepts from frameworks that read bodies first. Connect then parses and limits
 * it exactly as before; every other request (gRPC, gRPC-web, streams, compressed or larger bodies)
 * takes connect-node's own path.
 */
export function connectAdapter(options: AdapterOptions): (req: Req, res: Res) => void {
  options.acceptCompression ??= [compressionGzip, compressionBrotli];
  const router = createConnectRouter(options);
  options.routes(router);
  const paths = new Map(router.handlers.map((h) => [h.requestPath, h]));
  return (req, res) => {
    const handler = paths.get(req.url?.split('?', 2)[0] ?? '');
    if (!handler) {
      options.fallback(req, res);
      return;
    }
    const serve = (body: Uint8Array | AsyncIterable<Uint8Array> | undefined) => {
      // connect-node's own types name a parsed JSON body; Connect takes bytes or chunks in the same place.
      const uReq = universalRequestFromNodeRequest(req as any, res as any, body as any, undefined);
      handler(uReq)
        .then((uRes) => universalResponseToNodeResponse(uRes, res as any))
        .catch((reason) => {
          if (ConnectError.from(reason).code === Code.Aborted) return;
          console.error(`handler for rpc ${handler.method.name} of ${handler.service.typeName} failed`, reason);
        });
    };
    const length = preReadLength(req);
    if (length === undefined) serve(undefined);
    else readBody(req, length, serve);
  };
}

/** The announced length of a body to read here, or undefined when connect-node should stream it. */
function preReadLength(req: Req): number | undefined {
  if (req.method !== 'POST') return undefined;
  const h = req.headers;
  if (h['content-encoding'] !== undefined && h['content-encoding'] !== 'identity') return undefined;
  const type = h['content-type'];
  if (type !== 'application/json' && type !== 'application/proto') {
    const base = type?.split(';', 1)[0].trim().toLowerCase();
    if (base !== 'application/json' && base !== 'application/proto') return undefined;
  }
  const announced = h['content-length'];
  if (announced === undefined || !/^\d{1,5}$/.test(announced)) return undefined;
  const length = Number(announced);
  return length <= PRE_READ_MAX_BYTES ? length : undefined;
}

/**
 * Reads the body, then serves it. One of exactly `length` bytes goes to Connect as bytes. One that ends
 * short or runs long (over HTTP/1.1 Node.js itself stops at the Content-Length; an HTTP/2 stream may
 * break its promise) goes to Connect as the chunks received, which Connect checks against the
 * Content-Length as it checks a streamed body, answering with its own protocol error. A request that
 * fails or is closed before its end is left to Node.js (connect-node aborts its call the same way).
 */
function readBody(req: Req, length: number, serve: (body: Uint8Array | AsyncIterable<Uint8Array>) => void) {
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  };
  const onEnd = () => {
    req.off('error', onError);
    if (received === length) serve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    else serve(createAsyncIterable(chunks));
  };
  const onError = () => {
    req.off('data', onData);
    req.off('end', onEnd);
  };
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('error', onError);
}
