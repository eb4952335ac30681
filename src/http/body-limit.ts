import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * A request body limit that leaves the body unread. Hono's own middleware touches `request.body`,
 * which turns @hono/node-server's lazy request into a full WHATWG Request with a web stream — about
 * a tenth of the CPU of a small token request. A declared Content-Length is judged from the header
 * alone, so the handler's later read stays on the server's direct path; only bodies without a
 * length (chunked HTTP/1.1, HTTP/2 streams) are counted while they stream — by Hono's middleware, which
 * holds such a body in memory to count it, unless `countsItself` says the handler counts as it reads
 * (the bulk import, which streams its body to disk).
 */
export function limitBody(
  maxSize: number,
  onError: (c: Context) => Response | Promise<Response>,
  opts: { countsItself?: boolean } = {},
): MiddlewareHandler {
  const streaming = bodyLimit({ maxSize, onError });
  return (c: Context, next: Next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && /^\d+$/.test(length) && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > maxSize ? Promise.resolve(onError(c)) : next();
    }
    return opts.countsItself ? next() : streaming(c, next);
  };
}
