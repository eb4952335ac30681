import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressProblem } from './address';
import { MetadataProblem } from './problem';

/**
 * A metadata document is a few hundred bytes; the draft suggests limiting responses to about 5 KB.
 * The limit is enforced while the body streams in, so a server sending megabytes costs us 5 KiB.
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** The whole exchange (connect, headers, body) must finish within this, or the client is refused. */
export const FETCH_TIMEOUT_MS = 3000;

export interface FetchedDocument {
  json: unknown;
  cacheControl: string | undefined;
}

/**
 * GETs the document at a checked client_id URL. No redirect is followed (a 3xx is refused, so a
 * public URL cannot bounce the server to an internal one); every address the host name resolves to
 * is checked before connecting, in the connection's own lookup, so DNS cannot answer one address to
 * a check and another to the connect; the body must be JSON, at most MAX_DOCUMENT_BYTES, within
 * FETCH_TIMEOUT_MS.
 */
export function fetchMetadataDocument(url: URL, allowLoopback: boolean): Promise<FetchedDocument> {
  // Node connects to an IP literal without calling lookup, so literals are checked here.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const why = addressProblem(literal, allowLoopback);
    if (why) return Promise.reject(new MetadataProblem(`the client_id URL's host ${why}`));
  }
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.get(
      url,
      {
        agent: false,
        lookup: guardedLookup(allowLoopback),
        headers: { accept: 'application/json', 'user-agent': 'Portcullis client metadata fetcher' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        const problem =
          status >= 300 && status < 400
            ? `answered a redirect (HTTP ${status}), which is not followed: serve it at the client_id URL itself`
            : status !== 200
              ? `answered HTTP ${status}`
              : type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)
                ? `is not JSON (content type "${type || 'none'}")`
                : Number(res.headers['content-length'] ?? 0) > MAX_DOCUMENT_BYTES
                  ? `is larger than ${MAX_DOCUMENT_BYTES} bytes`
                  : undefined;
        if (problem) return fail(new MetadataProblem(`the client metadata document ${problem}`));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_DOCUMENT_BYTES)
            return fail(new MetadataProblem(`the client metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          try {
            resolve({
              json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
              cacheControl: headerValue(res.headers['cache-control']),
            });
          } catch {
            reject(new MetadataProblem('the client metadata document is not valid JSON'));
          }
        });
        res.on('error', (err) => fail(err));
      },
    );
    const timer = setTimeout(
      () => fail(new MetadataProblem(`the client metadata document did not arrive within ${FETCH_TIMEOUT_MS} ms`)),
      FETCH_TIMEOUT_MS,
    );
    req.on('error', (err) => fail(err));
    let done = false;
    function fail(err: Error): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // destroy() also stops reading a body that is still coming
      req.destroy();
      reject(
        err instanceof MetadataProblem
          ? err
          : new MetadataProblem(`the client metadata document could not be fetched (${errorCode(err)})`),
      );
    }
  });
}

/** dns.lookup, refusing when any address of the host is one we must not reach. */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = addressProblem(a.address, allowLoopback);
        if (why)
          return callback(new MetadataProblem(`the client_id URL's host resolves to an address that ${why}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function errorCode(err: Error): string {
  if (err instanceof MetadataProblem) return err.message;
  return (err as { code?: string }).code ?? err.message;
}
