import { createIdentityProvider } from '../../src/domain/idp/commands';
import { idpEnvOf } from '../../src/domain/idp/env';
import type { IdpOptions } from '../../src/domain/idp/options';
import type { ProviderSpec, SecretsInput } from '../../src/domain/idp/spec';
import type { Browser } from './browser';
import { systemCtx } from './context';
import type { TestServer } from './server';
import type { UpstreamOidc } from './upstream-oidc';

export const JIT: IdpOptions = {
  isLinkingAllowed: true,
  isCreationAllowed: true,
  isAutoCreation: true,
  isAutoUpdate: false,
  autoLinking: 'EMAIL',
  storeTokens: false,
};

/** A provider of the instance (or of `orgId`), created through the domain as an administrator would. */
export async function addProvider(
  server: TestServer,
  p: { name: string; spec: ProviderSpec; secrets?: SecretsInput; options?: Partial<IdpOptions>; orgId?: string },
) {
  return createIdentityProvider(systemCtx(server), idpEnvOf(server.app.config), {
    orgId: p.orgId,
    name: p.name,
    spec: p.spec,
    secrets: p.secrets ?? {},
    options: { ...JIT, ...p.options },
  });
}

/** A generic OpenID Connect provider for a node-oidc-provider upstream (its client_secret_basic client). */
export function addOidcUpstream(
  server: TestServer,
  upstream: UpstreamOidc,
  opts: { name?: string; options?: Partial<IdpOptions>; orgId?: string } = {},
) {
  return addProvider(server, {
    name: opts.name ?? 'Upstream OIDC',
    orgId: opts.orgId,
    options: opts.options,
    spec: {
      kind: 'generic_oidc',
      issuer: upstream.issuer,
      clientId: upstream.client.clientId,
      clientAuth: 'client_secret_basic',
      scopes: ['openid', 'profile', 'email'],
      disablePkce: false,
      useUserinfo: false,
      emailVerifiedByProvider: false,
      mapping: {},
    },
    secrets: { clientSecret: upstream.client.clientSecret },
  });
}

/**
 * From an authorization URL to the provider button's redirect: the login page, then the button of
 * `idpId`. Returns the page the server answered (a redirect to the upstream, or a page).
 */
export async function pressProviderButton(browser: Browser, authUrl: string, idpId: string) {
  const page = await browser.go(authUrl);
  if (!page.url.includes('/ui/login/login')) throw new Error(`expected the login page, got ${page.url}`);
  return browser.submit(page, '/ui/login/idp/start', { idp: idpId });
}
