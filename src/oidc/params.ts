import type { Context } from 'hono';
import { readUtf8Body } from '../http/read-body';
import { invalidRequest } from '../domain/oidc/oauth-errors';

export type Params = Map<string, string>;

const FORM = 'application/x-www-form-urlencoded';

/** Parameters of a GET (query) or POST (form body); also reports names sent more than once. */
export async function readParams(
  c: Context,
  opts: { formOnly?: boolean } = {},
): Promise<{ params: Params; repeated: string[] }> {
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
  return { params, repeated: [...repeated] };
}

/** Form body of a back-channel endpoint: a repeated parameter is invalid_request. */
export async function readForm(c: Context): Promise<Params> {
  const { params, repeated } = await readParams(c, { formOnly: true });
  if (repeated.length) throw invalidRequest(`parameter repeated: ${repeated.join(', ')}`);
  return params;
}

export function noStore(c: Context): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
}
