import type { Context } from 'hono';
import { invalidArgument } from '../domain/errors';
import { readUtf8Body } from '../http/read-body';
import type { Form } from './steps/types';

export async function readForm(c: Context): Promise<Form> {
  // The pages post urlencoded forms: read the bytes directly (parseBody would first build a full web
  // Request with a stream). Anything else (multipart from a script) takes Hono's general parser.
  if ((c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const text = await readUtf8Body(c);
    if (text === undefined) return {};
    const out: Form = {};
    for (const [k, v] of new URLSearchParams(text)) out[k] = v;
    return out;
  }
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw invalidArgument('Errors.Invalid.Form', 'the form body is malformed');
  }
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string') continue;
    // the input guard sees urlencoded bodies only; multipart values get the same NUL check here
    if (v.includes('\0') || k.includes('\0'))
      throw invalidArgument(
        'Errors.Invalid.Form',
        `form parameter ${JSON.stringify(k.replace(/\0/g, ''))} contains a NUL byte`,
      );
    out[k] = v;
  }
  return out;
}
