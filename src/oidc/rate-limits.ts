import type { Context } from 'hono';
import type { Deps } from '../deps';
import { getInstanceSettings } from '../domain/instance/settings';
import type { RateLimiter } from '../http/rate-limit/limiter';
import { sourceAddress } from '../http/rate-limit/source-address';
import { OAuthError } from './errors';
import type { Params } from './params';
import { presentedClientId } from './presented-client';

/**
 * RFC 6749 defines no token endpoint error for "too many requests". `temporarily_unavailable` is
 * its code for "cannot handle the request now, try later" (§4.1.2.1); unlike invalid_request it
 * does not tell the client its request was wrong, and unlike RFC 8628's slow_down it carries no
 * device-flow polling rule. The status (429) and Retry-After say the rest.
 */
export const RATE_LIMITED = 'temporarily_unavailable';

function refused(seconds: number, what: string): OAuthError {
  return new OAuthError(RATE_LIMITED, `too many ${what}; retry after ${seconds} seconds`, 429, {
    'Retry-After': String(seconds),
  });
}

/** The limits of the OpenID Provider's endpoints; each check throws a 429 OAuthError when over. */
export function oidcRateLimits(deps: Deps, limiter: RateLimiter) {
  const settings = () => getInstanceSettings(deps.database.db, deps.instanceId);
  const take = async (bucket: string, key: string, points: number, windowSeconds: number, what: string) => {
    const wait = await limiter.take(bucket, key, { points, windowSeconds });
    if (wait > 0) throw refused(wait, what);
  };
  return {
    /** Before the body is read, so that a flood of junk costs no more than a count. */
    async tokenByAddress(c: Context): Promise<void> {
      const s = await settings();
      await take(
        'token-address',
        sourceAddress(c),
        s.tokenRateLimitPerAddress,
        s.rateLimitWindowSeconds,
        'token requests from this address',
      );
    },
    /** After the address passed: a refused address does not also use up the client's count. */
    async tokenByClient(c: Context, params: Params): Promise<void> {
      const clientId = presentedClientId(c.req.header('authorization'), params);
      if (!clientId) return;
      const s = await settings();
      await take(
        'token-client',
        clientId,
        s.tokenRateLimitPerClient,
        s.rateLimitWindowSeconds,
        'token requests for this client',
      );
    },
    async keysByAddress(c: Context): Promise<void> {
      const s = await settings();
      await take(
        'keys-address',
        sourceAddress(c),
        s.keysRateLimitPerAddress,
        s.rateLimitWindowSeconds,
        'key set requests from this address',
      );
    },
  };
}

export type OidcRateLimits = ReturnType<typeof oidcRateLimits>;
