import http from 'node:http';
import https from 'node:https';
import { isLoopbackHost } from '../idp/oauth/config';
import { guardedLookup, type OutboundRule, refuseLiteral } from './connect-guard';
import { OutboundRefused } from './refused';

export type { OutboundRule } from './connect-guard';
export { OutboundRefused } from './refused';

/** Bodies larger than this are refused unless the caller sets a smaller cap: metadata and keys are a few kB. */
const DEFAULT_MAX_BYTES = 1024 * 1024;
/** The whole exchange (connect, headers, body) must finish within this unless the caller sets another cap. */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface GuardedRequest extends OutboundRule {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array | ArrayBuffer | URLSearchParams | null;
  /** the caller's own cancellation (openid-client's timeout): the request fails with its reason */
  signal?: AbortSignal | null;
  /** default DEFAULT_MAX_BYTES */
  maxBytes?: number;
  /** default DEFAULT_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * The one way the server fetches a URL that a caller chose (a client ID metadata document, an identity
 * provider's metadata, discovery, keys, token and userinfo endpoints, a back-channel logout URI, and
 * any webhook to come). The rule:
 * - https only; plain http only in development mode and only to a loopback host;
 * - every address the host resolves to is checked in the connection's own lookup (no DNS rebinding
 *   between a check and the connect): loopback, private, link-local, unique-local, multicast,
 *   unspecified, their IPv4-mapped forms and cloud metadata (169.254.169.254) are refused, loopback
 *   allowed in development mode only;
 * - no redirect is followed: a 3xx is an OutboundRefused, so a public URL cannot bounce the server to
 *   an internal one;
 * - the body is read whole, at most `maxBytes` (counted as it streams in: a server sending megabytes
 *   costs us the cap), and the exchange ends within `timeoutMs`.
 * Refusals are OutboundRefused (failed_precondition); a timeout is a DOMException named TimeoutError;
 * a connection that fails is a TypeError "fetch failed" with the socket's error as cause, as with fetch.
 */
export function guardedFetch(url: string | URL, req: GuardedRequest): Promise<Response> {
  let target: URL;
  try {
    target = new URL(url);
    checkScheme(target, req);
    refuseLiteral(target.hostname, req);
  } catch (err) {
    return Promise.reject(err);
  }
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers = requestHeaders(req);
  const body = requestBody(req.body, headers);
  return new Promise((resolve, reject) => {
    let settled = false;
    const mod = target.protocol === 'https:' ? https : http;
    const request = mod.request(
      target,
      { method: req.method ?? 'GET', agent: false, lookup: guardedLookup(req), headers },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400)
          return fail(new OutboundRefused(req.purpose, `answered a redirect (HTTP ${status}), which is not followed`));
        if (status < 200 || status > 599) return fail(new OutboundRefused(req.purpose, `answered HTTP ${status}`));
        if (Number(res.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge(req.purpose, maxBytes));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(tooLarge(req.purpose, maxBytes));
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settle();
          const empty = status === 204 || status === 205;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: responseHeaders(res) }));
        });
        res.on('error', (err) => fail(err));
      },
    );
    const timer = setTimeout(
      () => fail(new DOMException(`${req.purpose} did not arrive within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    const onAbort = () => fail(req.signal?.reason ?? new DOMException('aborted', 'AbortError'));
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (err) => fail(err));
    request.end(body);

    function settle(): void {
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
    function fail(err: unknown): void {
      if (settled) return;
      settle();
      // destroy() also stops reading a body that is still coming
      request.destroy();
      const known = err instanceof OutboundRefused || err instanceof DOMException || err === req.signal?.reason;
      reject(known ? err : new TypeError('fetch failed', { cause: err }));
    }
  });
}

function checkScheme(url: URL, rule: OutboundRule): void {
  if (url.protocol === 'https:') return;
  if (url.protocol !== 'http:') throw new OutboundRefused(rule.purpose, 'must be an https URL');
  if (!rule.development || !isLoopbackHost(url.hostname))
    throw new OutboundRefused(rule.purpose, 'must use https (plain http only to a loopback host in development mode)');
}

const tooLarge = (purpose: string, maxBytes: number) =>
  new OutboundRefused(purpose, `is larger than ${maxBytes} bytes`);

function requestHeaders(req: GuardedRequest): Record<string, string> {
  const out: Record<string, string> = { 'user-agent': 'Portcullis' };
  new Headers(req.headers ?? {}).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function requestBody(body: GuardedRequest['body'], headers: Record<string, string>): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    body = body.toString();
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body as Uint8Array);
  headers['content-length'] = String(bytes.length);
  return bytes;
}

function responseHeaders(res: http.IncomingMessage): Headers {
  const out = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      out.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    } catch {
      // a header the Fetch API cannot hold (bytes outside Latin-1) is left out rather than failing the fetch
    }
  }
  return out;
}
