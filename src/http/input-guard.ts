import type { Context, MiddlewareHandler } from 'hono';

/** Deeper JSON than this is refused before any handler parses it (no request of ours nests so deep). */
const MAX_JSON_DEPTH = 32;

/**
 * The one boundary check for the HTTP routes (OIDC endpoints, login pages, v1 routes): a NUL byte
 * in a query or form parameter or in a JSON string, and JSON nested deeper than MAX_JSON_DEPTH, are
 * refused with a 400 that names the parameter — before a handler could pass the value to the
 * database (which refuses NUL in text) or recurse into it. The v2 API has the same check as a
 * Connect interceptor (api/interceptors/input-guard.ts). `skip` lists paths that stream their own
 * bodies (the bulk import checks each user itself).
 */
export function inputGuard(skip: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const q = c.req.url.indexOf('?');
    if (q >= 0) {
      const bad = nulParameter(c.req.url.slice(q + 1));
      if (bad !== undefined) return refuse(c, `query parameter ${bad} contains a NUL byte`);
    }
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && !skip.has(c.req.path)) {
      const type = (c.req.header('content-type') ?? '').toLowerCase();
      if (type.startsWith('application/x-www-form-urlencoded')) {
        const bad = nulParameter(await bodyText(c));
        if (bad !== undefined) return refuse(c, `form parameter ${bad} contains a NUL byte`);
      } else if (type.includes('json')) {
        const problem = jsonProblem(await bodyText(c));
        if (problem) return refuse(c, problem);
      }
    }
    return next();
  };
}

// Hono keeps the bytes it read, so the handler's own read of the body gets them again.
async function bodyText(c: Context): Promise<string> {
  try {
    return Buffer.from(await c.req.arrayBuffer()).toString('latin1');
  } catch {
    return '';
  }
}

/** The name of the first parameter of a query or form string whose name or value holds NUL. */
function nulParameter(encoded: string): string | undefined {
  if (!/%00|\0/i.test(encoded)) return undefined;
  for (const pair of encoded.split('&')) {
    if (!/%00|\0/i.test(pair)) continue;
    const name = pair.split('=')[0];
    let decoded: string;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      decoded = name;
    }
    return JSON.stringify(decoded.replace(/\0/g, '\\0').slice(0, 64));
  }
  return '(unknown)';
}

/** A NUL in a JSON string (raw or `\u0000`) or nesting deeper than MAX_JSON_DEPTH; undefined when fine. */
function jsonProblem(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0) return 'the JSON body contains a NUL byte';
    if (inString) {
      if (ch === 0x5c) {
        if (/^u0000/i.test(text.slice(i + 1, i + 6)))
          return `the JSON body contains a NUL character (\\u0000) in a string${fieldBefore(text, i)}`;
        i++;
      } else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return undefined;
}

/** ` (field "x")`: the last object key before position `i`, to point the client at its field. */
function fieldBefore(text: string, i: number): string {
  const m = /"([A-Za-z0-9_.-]{1,64})"\s*:\s*"[^"]*$/.exec(text.slice(Math.max(0, i - 200), i));
  return m ? ` (field "${m[1]}")` : '';
}

function refuse(c: Context, message: string): Response {
  const p = c.req.path;
  if (p.startsWith('/admin/v1/') || p.startsWith('/management/v1/') || p.startsWith('/auth/v1/')) {
    return c.json({ code: 3, message, details: [] }, 400);
  }
  c.header('Cache-Control', 'no-store');
  return c.json({ error: 'invalid_request', error_description: message }, 400);
}
