import { type Context, Hono } from 'hono';
import type { Deps } from '../../deps';
import { DomainError } from '../../domain/errors';
import { idpEnvOf, samlAcsUrl, samlMetadataUrl } from '../../domain/idp/env';
import { type CallbackOutcome, finishOAuthCallback, finishSamlCallback } from '../../domain/idp/intents/callback';
import { providerForSignIn } from '../../domain/idp/intents/provider-for-sign-in';
import { samlMetadata } from '../../domain/idp/protocols';
import { oidcCtx } from '../../oidc/env';
import { pageUrl } from '../flow';
import { errorPage } from '../render';
import { autoPost } from './auto-post';
import { sentBindingSecret } from './binding';

/** Marks a callback POST that the browser re-sent from our own page (it then carries our cookies). */
const REPOSTED = '_reposted';

/**
 * A cross-site POST (a SAML IdP's response, Apple's form_post) arrives without our Lax cookies, so
 * the browser binding cannot be checked. The answer is a page that posts the same fields to the same
 * address from our own origin, a same-site request that carries them.
 */
const repost = (c: Context, fields: Record<string, string>) => autoPost(c, c.req.path, { ...fields, [REPOSTED]: '1' });

/** A custom UI's success or failure URL with the intent's id and its token or error. */
function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** Where the browser goes once the callback is settled. */
function afterCallback(c: Context, outcome: CallbackOutcome) {
  const { intent } = outcome;
  // the browser that brought the callback is not the one that started it: it gets nothing to follow
  if (!outcome.ok && outcome.foreignBrowser) return errorPage(c, outcome.error);
  if (intent.authRequestId)
    return c.redirect(`${pageUrl('idp', intent.authRequestId)}&intent=${encodeURIComponent(intent.id)}`, 303);
  if (outcome.ok)
    return c.redirect(withParams(intent.successUrl!, { id: intent.id, token: outcome.finished.token }), 303);
  return c.redirect(withParams(intent.failureUrl!, { id: intent.id, error: outcome.error }), 303);
}

/** The callback a refused or unknown state gets: a page, never a redirect to an address we cannot trust. */
function refused(c: Context, err: unknown) {
  if (err instanceof DomainError && err.kind !== 'internal') return errorPage(c, err.message);
  throw err;
}

/**
 * The addresses upstream identity providers send the browser back to: `/idps/callback` for every
 * OpenID Connect / OAuth provider, and per SAML provider its assertion consumer service and the
 * service-provider metadata the IdP is configured with.
 */
export function idpCallbackRoutes(deps: Deps) {
  const app = new Hono();
  const ctx = () => oidcCtx(deps, 'idps/callback');

  app.get('/idps/callback', async (c) => {
    const params = new URL(c.req.url).searchParams;
    try {
      return afterCallback(c, await finishOAuthCallback(ctx(), idpEnvOf(deps.config), params, sentBindingSecret(c)));
    } catch (err) {
      return refused(c, err);
    }
  });

  app.post('/idps/callback', async (c) => {
    const form = (await c.req.parseBody()) as Record<string, string>;
    if (!form[REPOSTED]) return repost(c, form);
    const params = new URLSearchParams(Object.entries(form).filter(([k]) => k !== REPOSTED));
    try {
      return afterCallback(c, await finishOAuthCallback(ctx(), idpEnvOf(deps.config), params, sentBindingSecret(c)));
    } catch (err) {
      return refused(c, err);
    }
  });

  app.post('/idps/:id/saml/acs', async (c) => {
    const form = (await c.req.parseBody()) as Record<string, string>;
    if (!form[REPOSTED]) return repost(c, form);
    try {
      const env = idpEnvOf(deps.config);
      return afterCallback(c, await finishSamlCallback(ctx(), env, c.req.param('id'), form, sentBindingSecret(c)));
    } catch (err) {
      return refused(c, err);
    }
  });

  app.get('/idps/:id/saml/metadata', async (c) => {
    const env = idpEnvOf(deps.config);
    const id = c.req.param('id');
    let provider: Awaited<ReturnType<typeof providerForSignIn>>;
    try {
      provider = await providerForSignIn(deps.database.db, env.masterKey, id);
    } catch (err) {
      return refused(c, err);
    }
    if (provider.runtime.protocol !== 'saml') return errorPage(c, 'not a SAML identity provider', { status: 404 });
    const { spMetadata } = await samlMetadata();
    const xml = spMetadata(provider.runtime.config, provider.runtime.keys, {
      entityId: samlMetadataUrl(env, id),
      acsUrl: samlAcsUrl(env, id),
    });
    return c.body(xml, 200, { 'Content-Type': 'application/samlmetadata+xml; charset=utf-8' });
  });

  return app;
}
