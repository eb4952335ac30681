import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
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

type Limit = 'tokenRateLimitPerAddress' | 'tokenRateLimitPerClient' | 'keysRateLimitPerAddress';

/** The limits of the OpenID Provider's endpoints; each check throws a 429 OAuthError when over. */
export function oidcRateLimits(deps: Deps, limiter: RateLimiter) {
  /** One count against one of the instance's limits, in the instance's one rate-limit window. */
  const take = async (bucket: string, key: string, limit: Limit, what: string) => {
    const s = await getInstanceSettings(sourceOf(deps), deps.instanceId);
    const wait = await limiter.take(bucket, key, { points: s[limit], windowSeconds: s.rateLimitWindowSeconds });
    if (wait > 0) throw refused(wait, what);
  };
  return {
    /** Before the body is read, so that a flood of junk costs no more than a count. */
    async tokenByAddress(c: Context): Promise<void> {
      await take('token-address', sourceAddress(c), 'tokenRateLimitPerAddress', 'token requests from this address');
    },
    /** After the address passed: a refused address does not also use up the client's count. */
    async tokenByClient(c: Context, params: Params): Promise<void> {
      const clientId = presentedClientId(c.req.header('authorization'), params);
      if (!clientId) return;
      await take('token-client', clientId, 'tokenRateLimitPerClient', 'token requests for this client');
    },
    /**
     * Client registration and configuration requests: their own bucket of the token endpoint's
     * per-address size, so that registering clients in a loop cannot also starve token requests.
     */
    async registerByAddress(c: Context): Promise<void> {
      await take(
        'register-address',
        sourceAddress(c),
        'tokenRateLimitPerAddress',
        'registration requests from this address',
      );
    },
    async keysByAddress(c: Context): Promise<void> {
      await take('keys-address', sourceAddress(c), 'keysRateLimitPerAddress', 'key set requests from this address');
    },
  };
}

export type OidcRateLimits = ReturnType<typeof oidcRateLimits>;
