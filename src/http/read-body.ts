import type { Context } from 'hono';

// fatal: invalid UTF-8 is an error, not U+FFFD; decode() without streaming keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as text, read on @hono/node-server's direct path (no web stream). Undefined when
 * the bytes are not valid UTF-8 or the body could not be read (the client went away).
 */
export async function readUtf8Body(c: Context): Promise<string | undefined> {
  try {
    return utf8.decode(await c.req.arrayBuffer());
  } catch {
    return undefined;
  }
}
