import type { TestServer } from '../helpers/server';

/** POSTs JSON to a v1 route with the admin PAT (or `token`) and returns status and parsed body. */
export async function post(
  server: TestServer,
  path: string,
  body: unknown,
  init: { token?: string | null; headers?: Record<string, string> } = {},
) {
  const res = await server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    token: init.token,
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function get(
  server: TestServer,
  path: string,
  init: { token?: string | null; headers?: Record<string, string> } = {},
) {
  const res = await server.fetch(path, { headers: init.headers, token: init.token });
  return { status: res.status, body: (await res.json()) as any };
}

export function human(userId: string, userName: string, extra: Record<string, unknown> = {}) {
  return {
    userId,
    user: {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace', displayName: `Ada ${userName}`, preferredLanguage: 'en' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      ...extra,
    },
  };
}
