import type { Context } from 'hono';
import { readUtf8Body } from '../http/read-body';
import { invalidRequest } from '../domain/oidc/oauth-errors';

export type Params = Map<string, string>;

const FORM = 'application/x-www-form-urlencoded';

/**
 * Parameters of a GET (query) or POST (form body); also reports names sent more than once, and keeps
 * every value (`all`) for the few parameters that may repeat (RFC 8707 `resource`).
 */
export async function readParams(
  c: Context,
  opts: { formOnly?: boolean } = {},
): Promise<{ params: Params; repeated: string[]; all: URLSearchParams }> {
  let search: URLSearchParams;
  if (c.req.method === 'POST') {
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== FORM) throw invalidRequest(`the body must be ${FORM}`);
    const text = await readUtf8Body(c);
    if (text === undefined) throw invalidRequest('the body is not valid UTF-8');
    search = new URLSearchParams(text);
  } else {
    if (opts.formOnly) throw invalidRequest('use POST with a form body');
    search = new URL(c.req.url).searchParams;
  }
  const params: Params = new Map();
  const repeated = new Set<string>();
  for (const [k, v] of search) {
    if (params.has(k)) repeated.add(k);
    else params.set(k, v);
  }
  return { params, repeated: [...repeated], all: search };
}

/** Form body of a back-channel endpoint: a repeated parameter is invalid_request. */
export async function readFormParams(c: Context): Promise<Params> {
  return (await readFormWith(c, [])).params;
}

/** readFormParams, except that the parameters named in `repeatable` may repeat (all their values are in `all`). */
export async function readFormWith(
  c: Context,
  repeatable: string[],
): Promise<{ params: Params; all: URLSearchParams }> {
  const { params, repeated, all } = await readParams(c, { formOnly: true });
  const wrong = repeated.filter((name) => !repeatable.includes(name));
  if (wrong.length) throw invalidRequest(`parameter repeated: ${wrong.join(', ')}`);
  return { params, all };
}

export function noStore(c: Context): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
}
