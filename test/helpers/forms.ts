/** HTTP Basic credentials as OAuth wants them: each part form-encoded first (RFC 6749 §2.3.1). */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** POSTs an application/x-www-form-urlencoded body, as OAuth clients do. */
export async function postForm(
  server: { url: string },
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

/** postForm, answering the status and the JSON body ({} when the body is not JSON). */
export async function postFormJson(
  server: { url: string },
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await postForm(server, path, form, headers);
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
}
