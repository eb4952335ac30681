import * as client from 'openid-client';
import { DomainError } from '../../errors';
import { INVALID_RESPONSE, UNAVAILABLE, upstreamFailure } from './upstream-errors';

/** GETs a JSON document the access token opens (plain OAuth userinfo, GitHub's /user and /user/emails). */
async function fetchJson(c: client.Configuration, accessToken: string, url: string, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await client.fetchProtectedResource(
      c,
      accessToken,
      new URL(url),
      'GET',
      undefined,
      new Headers({ accept: 'application/json' }),
    );
  } catch (err) {
    throw upstreamFailure(err, what);
  }
  if (res.status >= 500)
    throw new DomainError('unavailable', UNAVAILABLE, `the upstream answered HTTP ${res.status} to ${what}`);
  if (res.status !== 200) {
    throw new DomainError('unauthenticated', INVALID_RESPONSE, `the upstream refused ${what} (HTTP ${res.status})`);
  }
  try {
    return await res.json();
  } catch {
    throw new DomainError('unauthenticated', INVALID_RESPONSE, `the upstream's answer to ${what} is not JSON`);
  }
}

/** Plain OAuth userinfo: any JSON object describing the user. */
export async function fetchUserinfoObject(c: client.Configuration, accessToken: string, url: string) {
  const body = await fetchJson(c, accessToken, url, 'the userinfo request');
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('unauthenticated', INVALID_RESPONSE, "the upstream's userinfo answer is not a JSON object");
  }
  return body as Record<string, unknown>;
}

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/**
 * GitHub's /user shows only the public email, with no word on whether it is verified. /user/emails
 * (scope user:email) lists every address with `primary` and `verified`: the primary one is used, and
 * counts as verified only when GitHub says so. Without that scope the public email stays unverified.
 */
export async function withGitHubEmail(
  c: client.Configuration,
  accessToken: string,
  userEndpoint: string,
  user: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let emails: unknown;
  try {
    emails = await fetchJson(c, accessToken, `${userEndpoint.replace(/\/+$/, '')}/emails`, 'the GitHub emails request');
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'unauthenticated') return { ...user, email_verified: false };
    throw err;
  }
  const list = Array.isArray(emails) ? (emails as GitHubEmail[]) : [];
  const primary = list.find((e) => e.primary === true && typeof e.email === 'string');
  if (!primary) return { ...user, email_verified: false, emails: list };
  return { ...user, email: primary.email, email_verified: primary.verified === true, emails: list };
}
