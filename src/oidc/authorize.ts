import type { Context } from 'hono';
import type { Deps } from '../deps';
import { answerAuthRequest } from '../domain/oidc/authorize';
import { mayFinish } from '../domain/oidc/may-finish';
import {
  type AuthRequest,
  createAuthRequest,
  findPendingAuthRequest,
  linkSessionToAuthRequest,
} from '../domain/oidc/auth-requests';
import { constantTimeEqual, sha256Hex } from '../crypto/random';
import { getSession } from '../domain/session/sessions';
import { userAgentHash } from '../login/cookies';
import { findClient } from '../domain/oidc/clients';
import { isKnownScope, requestedOrgId, splitScopes } from '../domain/oidc/scopes';
import { verifyOwnJwt } from '../domain/oidc/web-keys';
import { browserSessions } from '../login/flow';
import { nextStep } from '../login/sequence';
import { callbackUrl } from './callback-url';
import { errorPage } from '../login/render';
import { responseModeFor, sendAuthorizationResponse } from './authorize-response';
import { renderOAuthPage, safeDescription, toOAuthError } from './errors';
import { oidcCtx, oidcEnv } from './env';
import { readParams } from './params';
import { redirectUriCompliant } from '../domain/application/compliance';
import { redirectUriAllowed, redirectUriWellFormed } from './redirect-uris';

const RESPONSE_TYPES: Record<string, string> = {
  code: 'CODE',
  id_token: 'ID_TOKEN',
  'id_token token': 'ID_TOKEN_TOKEN',
};
export const PROMPTS = ['none', 'login', 'select_account', 'create', 'consent'];

function normalizeResponseType(raw: string): string {
  return raw.split(' ').filter(Boolean).sort().join(' ');
}

/**
 * GET/POST /oauth/v2/authorize. Steps: client → redirect URI (until both are known good, errors are
 * an error page with HTTP 400, never a redirect) → parameters (errors of §7.1 go to the redirect URI
 * with state and iss) → store the auth request → answer silently (prompt=none or one fitting session)
 * or send the browser to the login pages.
 */
export async function authorizeEndpoint(c: Context, deps: Deps) {
  let parsed: Awaited<ReturnType<typeof readParams>>;
  try {
    parsed = await readParams(c);
  } catch (err) {
    return renderOAuthPage(c, err, deps.log);
  }
  const { params, repeated } = parsed;
  const uiLocales = splitScopes(params.get('ui_locales'));
  const page = (detail: string) => errorPage(c, detail, { uiLocales });

  const clientId = params.get('client_id');
  if (!clientId || repeated.includes('client_id')) return page('client_id is missing or repeated');
  const client = await findClient(deps.database.db, clientId);
  if (!client?.active || !client.oidc) return page('unknown or inactive client');
  const redirectUri = params.get('redirect_uri');
  if (!redirectUri || repeated.includes('redirect_uri')) return page('redirect_uri is missing or repeated');
  if (!redirectUriWellFormed(redirectUri) || !redirectUriAllowed(client, redirectUri, client.oidc.redirectUris)) {
    return page('redirect_uri is not registered for this client');
  }
  if (!redirectUriCompliant(client.oidc, redirectUri)) {
    return page("redirect_uri breaks the rules for this application type (see the application's compliance problems)");
  }

  const issuer = deps.config.externalUrl;
  const rawResponseType = params.get('response_type') ?? '';
  const responseType =
    normalizeResponseType(rawResponseType) === 'id_token token'
      ? 'id_token token'
      : normalizeResponseType(rawResponseType);
  const mode = responseModeFor(RESPONSE_TYPES[responseType] ? responseType : 'code', params.get('response_mode'));
  const state = repeated.includes('state') ? undefined : params.get('state');
  const fail = (error: string, description: string) =>
    sendAuthorizationResponse(c, issuer, {
      redirectUri,
      mode,
      state,
      params: { error, error_description: safeDescription(description) },
    });

  // From here on the client and redirect URI are known good: every failure, also an unexpected one,
  // goes back to the client as an error response (§7.1), never as a 500 page.
  try {
    if (repeated.length) return fail('invalid_request', `parameter repeated: ${repeated.join(', ')}`);
    if (!rawResponseType) return fail('invalid_request', 'response_type is missing');
    if (!RESPONSE_TYPES[responseType])
      return fail('unsupported_response_type', `response_type ${rawResponseType} is not supported`);
    if (!client.oidc.responseTypes.includes(RESPONSE_TYPES[responseType])) {
      return fail('unauthorized_client', `the client may not use response_type ${rawResponseType}`);
    }
    const requested = splitScopes(params.get('scope'));
    // §7.1: a missing scope is a malformed request; one without openid is the wrong scope
    if (requested.length === 0) return fail('invalid_request', 'scope is required');
    if (!requested.includes('openid')) return fail('invalid_scope', 'scope must contain openid');
    const scopes = requested.filter(isKnownScope);

    const challenge = params.get('code_challenge');
    const method = params.get('code_challenge_method');
    if (method !== undefined && method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    if (challenge !== undefined && method === undefined)
      return fail('invalid_request', 'code_challenge_method S256 is required with code_challenge');
    if (method !== undefined && !challenge) return fail('invalid_request', 'code_challenge is missing');
    if (challenge !== undefined && !/^[A-Za-z0-9\-._~]{43,128}$/.test(challenge))
      return fail('invalid_request', 'code_challenge is malformed');
    if (responseType === 'code' && client.authMethod === 'NONE' && !challenge) {
      return fail('invalid_request', 'public clients must use PKCE (code_challenge with S256)');
    }
    const nonce = params.get('nonce');
    if (responseType !== 'code' && !nonce) return fail('invalid_request', 'nonce is required for the implicit flow');

    const prompt = splitScopes(params.get('prompt')).filter((p) => PROMPTS.includes(p));
    if (prompt.includes('none') && prompt.length > 1)
      return fail('invalid_request', 'prompt none cannot be combined with other values');
    const maxAgeRaw = params.get('max_age');
    if (maxAgeRaw !== undefined && !/^\d{1,9}$/.test(maxAgeRaw))
      return fail('invalid_request', 'max_age must be a non-negative integer');
    let hintUserId: string | null = null;
    const hint = params.get('id_token_hint');
    if (hint) {
      try {
        const { payload } = await verifyOwnJwt(deps.database.db, oidcEnv(deps).masterKey, hint, {
          issuer,
          ignoreExpiration: true,
        });
        hintUserId = typeof payload.sub === 'string' ? payload.sub : null;
      } catch {
        return fail(
          prompt.includes('none') ? 'login_required' : 'invalid_request',
          'id_token_hint is not a valid ID token of this issuer',
        );
      }
    }

    const ctx = oidcCtx(deps, 'oidc/authorize');
    const request = await createAuthRequest(
      ctx,
      {
        clientId,
        applicationId: client.applicationId,
        redirectUri,
        responseType,
        responseMode: mode,
        scopes,
        state: state ?? null,
        nonce: nonce ?? null,
        codeChallenge: challenge ?? null,
        prompt,
        maxAge: maxAgeRaw === undefined ? null : Number(maxAgeRaw),
        loginHint: params.get('login_hint') ?? null,
        hintUserId,
        uiLocales,
        orgId: requestedOrgId(scopes) ?? null,
      },
      client.orgId,
    );

    if (prompt.includes('none')) {
      const fitting = (await browserSessions(c, deps)).filter((s) => mayFinish(s, request, 'reuse'));
      if (fitting.length === 0) return fail('login_required', 'no session fits the request; the user must sign in');
      if (fitting.length > 1) return fail('interaction_required', 'several sessions fit; the user must choose');
      await linkSessionToAuthRequest(ctx, request.id, fitting[0].id);
      return answer(c, deps, request.id);
    }
    const next = await nextStep(c, deps, request);
    // One fitting session: answer right here instead of one more redirect through the callback.
    if (next === callbackUrl(request.id)) return answer(c, deps, request.id);
    return c.redirect(next, 303);
  } catch (err) {
    const known = toOAuthError(err);
    // temporarily_unavailable (the database is down) is an error the redirect carries (§4.1.2.1)
    if (known && known.code !== 'server_error') return fail(known.code, known.description);
    deps.log.error({ err, path: c.req.path }, 'unexpected error in the authorization endpoint');
    return fail('server_error', 'internal error');
  }
}

/**
 * GET /oauth/v2/authorize/callback?id=…: answers the auth request once its session (or error) is set
 * — only in the browser that signed in for it (the session was made with this browser's user-agent
 * cookie) or, for a custom login UI, with the key of the URL CreateCallback returned. Whoever merely
 * learns a request id cannot collect the answer in another browser.
 */
export async function callbackEndpoint(c: Context, deps: Deps) {
  const id = c.req.query('id') ?? '';
  const request = await findPendingAuthRequest(deps.database.db, id);
  if (request && !(await callbackBelongsHere(c, deps, request))) {
    return errorPage(c, 'this sign-in was completed in another browser; start again from the application');
  }
  return answer(c, deps, id);
}

async function callbackBelongsHere(c: Context, deps: Deps, request: AuthRequest): Promise<boolean> {
  if (request.callbackKeyHash) {
    const key = c.req.query('key');
    return !!key && constantTimeEqual(sha256Hex(key), request.callbackKeyHash);
  }
  if (!request.sessionId) return !!request.error; // an error answer carries nothing worth stealing
  const ua = userAgentHash(c);
  const session = ua ? await getSession(deps.database.db, request.sessionId) : undefined;
  return !!session && session.userAgentHash === ua;
}

async function answer(c: Context, deps: Deps, id: string) {
  const result = await answerAuthRequest(oidcCtx(deps, 'oidc/authorize'), oidcEnv(deps), id);
  if (!result) return errorPage(c, 'the authorization request has expired or was already answered');
  const r = result.request;
  const params = result.ok
    ? result.params
    : { error: result.error, error_description: safeDescription(result.description) };
  return sendAuthorizationResponse(c, deps.config.externalUrl, {
    redirectUri: r.redirectUri,
    mode: r.responseMode as 'query',
    state: r.state,
    params,
  });
}
