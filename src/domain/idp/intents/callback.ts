import { and, eq, gt, sql } from 'drizzle-orm';
import { constantTimeEqual, sha256Hex } from '../../../crypto/random';
import { idpIntents } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { DomainError, invalidArgument } from '../../errors';
import { execute } from '../../execute';
import { isDevelopmentIssuer } from '../../outbound/development';
import { type IdpEnv, oauthCallbackUrl, samlAcsUrl, samlMetadataUrl } from '../env';
import { oauthFlow, samlLogin } from '../protocols';
import type { IntentRow } from './model';
import { providerForSignIn } from './provider-for-sign-in';
import { type FinishedIntent, failIntent, succeedIntent } from './succeed';
import { upstreamCaches } from '../oauth/upstream-caches';

export type CallbackOutcome =
  | { intent: IntentRow; ok: true; finished: FinishedIntent }
  | { intent: IntentRow; ok: false; error: string; foreignBrowser?: boolean };

const unknownState = () =>
  invalidArgument('Errors.IdP.Intent.UnknownState', 'this sign-in is unknown, expired or already finished');

/**
 * Takes the intent a callback's `state` (RelayState) names out of STARTED, once: a second callback
 * with the same state (a replay, a double submit) finds nothing. Unknown and expired states alike
 * are refused before anything is sent upstream.
 */
async function claim(ctx: Ctx, state: string | undefined, idpId?: string): Promise<IntentRow> {
  if (!state) throw invalidArgument('Errors.IdP.Intent.UnknownState', 'state is missing');
  const row = await execute(ctx, async (work) => {
    const [claimed] = await work.tx
      .update(idpIntents)
      .set({ state: 'CALLBACK', attempts: sql`${idpIntents.attempts} + 1` })
      .where(
        and(
          eq(idpIntents.stateHash, sha256Hex(state)),
          eq(idpIntents.state, 'STARTED'),
          gt(idpIntents.expiresAt, new Date()),
          ...(idpId ? [eq(idpIntents.idpId, idpId)] : []),
        ),
      )
      .returning();
    return claimed;
  });
  if (!row) throw unknownState();
  return row;
}

/** The hosted login's intents belong to the browser that started them (its binding cookie). */
function boundToThisBrowser(intent: IntentRow, bindingSecret: string | undefined): boolean {
  if (!intent.bindingHash) return true;
  return !!bindingSecret && constantTimeEqual(sha256Hex(bindingSecret), intent.bindingHash);
}

async function settle(
  ctx: Ctx,
  intent: IntentRow,
  bindingSecret: string | undefined,
  run: () => Promise<CallbackOutcome | Omit<Extract<CallbackOutcome, { ok: true }>, 'intent'>>,
): Promise<CallbackOutcome> {
  if (!boundToThisBrowser(intent, bindingSecret)) {
    const error = 'this sign-in was started in another browser';
    await failIntent(ctx, intent, error);
    return { intent, ok: false, error, foreignBrowser: true };
  }
  try {
    const done = await run();
    return { ...done, intent } as CallbackOutcome;
  } catch (err) {
    // Upstream refusals and failed checks end the intent; anything else is a server fault.
    if (!(err instanceof DomainError) || err.kind === 'internal') throw err;
    await failIntent(ctx, intent, err.message);
    return { intent, ok: false, error: err.message };
  }
}

/** The OpenID Connect / OAuth callback (`/idps/callback`, query or form_post parameters). */
export async function finishOAuthCallback(
  ctx: Ctx,
  env: IdpEnv,
  params: URLSearchParams,
  bindingSecret?: string,
): Promise<CallbackOutcome> {
  const state = params.get('state') ?? undefined;
  const intent = await claim(ctx, state);
  return settle(ctx, intent, bindingSecret, async () => {
    const provider = await providerForSignIn(ctx.db, env.masterKey, intent.idpId);
    if (provider.runtime.protocol !== 'oauth') throw unknownState();
    const { completeAuthorization } = await oauthFlow();
    const { user, tokens } = await completeAuthorization(
      provider.runtime.config,
      provider.runtime.secrets,
      {
        redirectUri: oauthCallbackUrl(env),
        callbackParams: params,
        state: state!,
        nonce: intent.nonce ?? '',
        codeVerifier: intent.codeVerifier ?? '',
      },
      { development: isDevelopmentIssuer(env.externalUrl), caches: ctx.runtime.get(upstreamCaches) },
    );
    return { ok: true, finished: await succeedIntent(ctx, env.masterKey, intent, provider, user, tokens) };
  });
}

/** The SAML assertion consumer service (`/idps/<id>/saml/acs`, HTTP-POST). */
export async function finishSamlCallback(
  ctx: Ctx,
  env: IdpEnv,
  idpId: string,
  form: { SAMLResponse?: string; RelayState?: string },
  bindingSecret?: string,
): Promise<CallbackOutcome> {
  const intent = await claim(ctx, form.RelayState, idpId);
  return settle(ctx, intent, bindingSecret, async () => {
    const provider = await providerForSignIn(ctx.db, env.masterKey, intent.idpId);
    if (provider.runtime.protocol !== 'saml') throw unknownState();
    if (!form.SAMLResponse) throw invalidArgument('Errors.IdP.Saml.Invalid', 'SAMLResponse is missing');
    const endpoints = { entityId: samlMetadataUrl(env, idpId), acsUrl: samlAcsUrl(env, idpId) };
    const { completeLogin } = await samlLogin();
    const user = await completeLogin(provider.runtime.config, provider.runtime.keys, endpoints, {
      samlResponse: form.SAMLResponse,
      expectedRequestId: intent.samlRequestId ?? '',
    });
    return { ok: true, finished: await succeedIntent(ctx, env.masterKey, intent, provider, user) };
  });
}
