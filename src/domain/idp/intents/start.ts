import { randomToken, sha256Hex } from '../../../crypto/random';
import { idpIntents } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { invalidArgument } from '../../errors';
import { execute } from '../../execute';
import { newId } from '../../ids';
import { isDevelopmentIssuer } from '../../outbound/development';
import { requireLoginUiPermission } from '../../session/login-ui-permission';
import { type IdpEnv, oauthCallbackUrl, samlAcsUrl, samlMetadataUrl } from '../env';
import { ldapAuthentication, oauthFlow, samlLogin } from '../protocols';
import { INTENT_LIFETIME_MS } from './model';
import { providerForSignIn, type SignInProvider } from './provider-for-sign-in';
import { type FinishedIntent, succeedIntent } from './succeed';
import { upstreamCaches } from '../oauth/upstream-caches';

export interface StartIntentInput {
  idpId: string;
  /** a custom login UI's pages the browser returns to */
  successUrl?: string;
  failureUrl?: string;
  /** the hosted login's auth request, and the browser-binding secret of its cookie */
  authRequestId?: string;
  bindingSecret?: string;
  /** LDAP: the credentials typed in */
  ldap?: { username: string; password: string };
  loginHint?: string;
}

export type StartedIntent =
  | { intentId: string; authUrl: string }
  | { intentId: string; form: { url: string; fields: Record<string, string> } }
  | { intentId: string; finished: FinishedIntent };

function checkReturnUrl(field: string, value: string | undefined): string {
  let url: URL | undefined;
  try {
    url = value ? new URL(value) : undefined;
  } catch {}
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw invalidArgument('Errors.IdP.Intent.Invalid', `urls.${field} must be an http(s) URL`);
  return url.toString();
}

/**
 * Starts a sign-in at an upstream: an intent row that the callback finds by the `state` (or SAML
 * RelayState) it carries, with the nonce and PKCE verifier only the server knows. LDAP has no
 * redirect: the credentials are checked at once and the intent is finished.
 */
export async function startIntent(ctx: Ctx, env: IdpEnv, input: StartIntentInput): Promise<StartedIntent> {
  const provider = await providerForSignIn(ctx.db, env.masterKey, input.idpId);
  const hosted = !!input.authRequestId;
  const base = {
    id: newId(),
    idpId: provider.row.id,
    authRequestId: input.authRequestId ?? null,
    bindingHash: input.bindingSecret ? sha256Hex(input.bindingSecret) : null,
    expiresAt: new Date(Date.now() + INTENT_LIFETIME_MS),
  };
  const { runtime } = provider;
  if (runtime.protocol === 'ldap') {
    if (!input.ldap)
      throw invalidArgument('Errors.IdP.Intent.Invalid', 'ldap credentials are required for an LDAP provider');
    const { authenticateWithLdap } = await ldapAuthentication();
    const { username, password } = input.ldap;
    const development = isDevelopmentIssuer(env.externalUrl);
    const user = await authenticateWithLdap(runtime.config, runtime.secrets, username, password, { development });
    const row = await insertIntent(ctx, provider, { ...base, stateHash: null });
    return { intentId: row.id, finished: await succeedIntent(ctx, env.masterKey, row, provider, user) };
  }
  const urls = hosted
    ? { successUrl: null, failureUrl: null }
    : {
        successUrl: checkReturnUrl('success_url', input.successUrl),
        failureUrl: checkReturnUrl('failure_url', input.failureUrl),
      };
  const state = randomToken(32);
  if (runtime.protocol === 'saml') {
    const endpoints = { entityId: samlMetadataUrl(env, provider.row.id), acsUrl: samlAcsUrl(env, provider.row.id) };
    const { startLogin } = await samlLogin();
    const started = await startLogin(runtime.config, runtime.keys, endpoints, state);
    await insertIntent(ctx, provider, {
      ...base,
      ...urls,
      stateHash: sha256Hex(state),
      samlRequestId: started.requestId,
    });
    if (started.postForm) return { intentId: base.id, form: started.postForm };
    return { intentId: base.id, authUrl: started.redirectUrl! };
  }
  const nonce = randomToken(32);
  const codeVerifier = randomToken(48);
  const { authorizationUrl } = await oauthFlow();
  const { url } = await authorizationUrl(
    runtime.config,
    runtime.secrets,
    { redirectUri: oauthCallbackUrl(env), state, nonce, codeVerifier, loginHint: input.loginHint },
    { development: isDevelopmentIssuer(env.externalUrl), caches: ctx.runtime.get(upstreamCaches) },
  );
  await insertIntent(ctx, provider, { ...base, ...urls, stateHash: sha256Hex(state), nonce, codeVerifier });
  return { intentId: base.id, authUrl: url };
}

/**
 * StartIdentityProviderIntent: a custom login UI starts a sign-in for a user it serves, so it needs the
 * login UI's permission. It returns to the UI's own URLs (or sends LDAP credentials), never into a
 * hosted-login auth request: those fields are not part of its input.
 */
export async function startIdentityProviderIntent(
  ctx: Ctx,
  env: IdpEnv,
  input: Pick<StartIntentInput, 'idpId' | 'successUrl' | 'failureUrl' | 'ldap'>,
): Promise<StartedIntent> {
  requireLoginUiPermission(ctx);
  return startIntent(ctx, env, {
    idpId: input.idpId,
    successUrl: input.successUrl,
    failureUrl: input.failureUrl,
    ldap: input.ldap,
  });
}

async function insertIntent(ctx: Ctx, provider: SignInProvider, values: typeof idpIntents.$inferInsert) {
  return execute(ctx, async (work) => {
    const [row] = await work.tx.insert(idpIntents).values(values).returning();
    work.push({
      aggregateType: 'idp_intent',
      aggregateId: row.id,
      type: 'idp_intent.started',
      payload: { idpId: provider.row.id },
      resourceOwner: provider.row.orgId ?? ctx.instanceId,
    });
    return row;
  });
}
