import type { Context, Next } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { getInstanceSettings } from '../domain/instance/settings';
import type { RateLimiter } from '../http/rate-limit/limiter';
import { sourceAddress } from '../http/rate-limit/source-address';
import { errorPage, localeOf } from './render';

/**
 * Every form post of the hosted login (login name, password, new password, codes, registration,
 * account choice) counts against the source address's limit before the form is read. Over it, the
 * browser gets the login's error page with 429 and Retry-After: a person reads why and how long.
 * Pages (GET) are not counted: they check nothing an attacker could guess.
 */
export function loginRateLimit(deps: Deps, limiter: RateLimiter) {
  return async (c: Context, next: Next) => {
    if (c.req.method !== 'POST') return next();
    const s = await getInstanceSettings(sourceOf(deps), deps.instanceId);
    const seconds = await limiter.take('login-address', sourceAddress(c), {
      points: s.loginRateLimitPerAddress,
      windowSeconds: s.rateLimitWindowSeconds,
    });
    if (seconds === 0) return next();
    c.header('Retry-After', String(seconds));
    const { t } = localeOf(c);
    return errorPage(c, 'too many sign-in attempts from this address', {
      status: 429,
      text: t.tooManyRequests.replace('{seconds}', String(seconds)),
    });
  };
}
