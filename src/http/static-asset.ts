import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'hono';

interface Encoded {
  br: Buffer;
  gzip: Buffer;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

// The few static assets the server sends (the console's script and stylesheet, the login's stylesheet
// and WebAuthn script) are compressed once per content and kept: the console's script is ~700 KB, and
// compressing it takes tens of milliseconds — on libuv's thread pool, so that the event loop goes on.
// Brotli quality 9 compresses within a few per cent of 11 at a tenth of its time. The assets are the same
// for every server of the process, so this is kept at module level.
const compressed = new Map<string, Promise<Encoded>>();
const MAX_KEPT = 16;

function encodedOf(key: string, text: string): Promise<Encoded> {
  let hit = compressed.get(key);
  if (!hit) {
    const raw = Buffer.from(text);
    const br = { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } };
    hit = Promise.all([brotliAsync(raw, br), gzipAsync(raw, { level: 9 })]).then(([b, g]) => ({ br: b, gzip: g }));
    // a new build replaces the old one; the oldest contents go first
    if (compressed.size >= MAX_KEPT) compressed.delete(compressed.keys().next().value as string);
    compressed.set(key, hit);
  }
  return hit;
}

/** The encodings the request accepts (an explicit `;q=0` refuses one). */
function accepts(header: string | undefined, coding: string): boolean {
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (name.trim() !== coding && name.trim() !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * Sends a static text asset brotli- or gzip-compressed when the browser accepts it (brotli first),
 * plain otherwise; `Vary: Accept-Encoding` keeps caches from mixing them up. `key` names the content
 * (a new content needs a new key, such as the console's content hash), so that a request hashes nothing.
 */
export async function sendStaticAsset(
  c: Context,
  asset: { key: string; text: string },
  contentType: string,
): Promise<Response> {
  c.header('Vary', 'Accept-Encoding');
  c.header('Content-Type', contentType);
  const header = c.req.header('accept-encoding');
  const coding = accepts(header, 'br') ? 'br' : accepts(header, 'gzip') ? 'gzip' : undefined;
  if (!coding) return c.body(asset.text, 200);
  c.header('Content-Encoding', coding);
  return c.body(new Uint8Array((await encodedOf(asset.key, asset.text))[coding]), 200);
}
