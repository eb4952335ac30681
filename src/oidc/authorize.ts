import type { Context } from 'hono';
import type { Deps } from '../deps';
import { answerAuthRequest } from '../domain/oidc/authorize';
import { type AuthRequest, createAuthRequest, findPendingAuthRequest } from '../domain/oidc/auth-requests';
import { finishAuthRequest } from '../domain/sign-in/finish';
import { constantTimeEqual, sha256Hex } from '../crypto/random';
import { getSession } from '../domain/session/sessions';
import { userAgentHash } from '../login/cookies';
import { loginRequired, oauthCodeOf } from '../domain/oidc/oauth-errors';
import { requestedOrgId, splitScopes } from '../domain/oidc/scopes';
import { nextStep } from '../login/sequence';
import { callbackUrl } from '../domain/oidc/callback-url';
import { DEVICE_RESPONSE_TYPE } from '../domain/oidc/device/login';
import { deviceConsentUrl } from '../login/device/paths';
import { errorPage } from '../login/render';
import { runChecks, trustedRequest } from './authorize/checks';
import { promptNoneSession } from './authorize/checks/prompt';
import { responseMode } from './authorize/checks/response-mode';
import type { AuthorizeInput, TrustedRequest } from './authorize/checks/types';
import { sendAuthorizationResponse } from './authorize-response';
import { renderOAuthPage, safeDescription, toOAuthError } from './errors';
import { oidcCtx, oidcEnv } from './env';
import { readParams } from './params';
import { resolveAuthorizeInput } from './authorize/request-parameters';

/**
 * GET/POST /oauth/v2/authorize: parse → the pushed request or the request object
 * (authorize/request-parameters.ts) → client and redirect URI (authorize/checks/index.ts; errors are
 * an error page) → the checks of the request (errors of §7.1 go to the redirect URI with state and iss)
 * → store the auth request → answer silently (prompt=none or one fitting session) or send the browser
 * to the login pages.
 */
export async function authorizeEndpoint(c: Context, deps: Deps) {
  let input: AuthorizeInput;
  try {
    input = { c, deps, ...(await readParams(c)) };
  } catch (err) {
    return renderOAuthPage(c, err, deps.log);
  }
  let req: TrustedRequest;
  try {
    input = await resolveAuthorizeInput(input);
    req = await trustedRequest(input);
  } catch (err) {
    // the checks' own errors are an error page; anything else (the database is down) is the app's to render
    if (oauthCodeOf(err) === undefined) throw err;
    return errorPage(c, (err as Error).message, { uiLocales: splitScopes(input.params.get('ui_locales')) });
  }
  const { params, repeated } = req;
  const uiLocales = splitScopes(params.get('ui_locales'));
  const { client, redirectUri } = req;
  const mode = responseMode(req);
  const state = repeated.includes('state') ? undefined : params.get('state');
  const fail = (error: string, description: string) =>
    sendAuthorizationResponse(c, deps.config.externalUrl, {
      redirectUri,
      mode,
      state,
      params: { error, error_description: safeDescription(description) },
    });

  // From here on the client and redirect URI are known good: every failure, also an unexpected one,
  // goes back to the client as an error response (§7.1), never as a 500 page.
  try {
    const found = await runChecks(req);
    const ctx = oidcCtx(deps, 'oidc/authorize');
    const request = await createAuthRequest(
      ctx,
      {
        clientId: client.clientId,
        applicationId: client.applicationId,
        redirectUri,
        responseType: req.responseType,
        responseMode: mode,
        state: state ?? null,
        ...found,
        loginHint: params.get('login_hint') ?? null,
        uiLocales,
        orgId: requestedOrgId(found.scopes) ?? null,
      },
      client.orgId,
    );

    if (found.prompt.includes('none')) {
      const session = await promptNoneSession(c, deps, request);
      const finished = await finishAuthRequest(ctx, request, session.id, 'reuse');
      if (!finished.ok) throw loginRequired('no session fits the request; the user must sign in');
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
  // A device sign-in ends with the user's consent in this browser, not with a redirect to a client.
  if (request?.responseType === DEVICE_RESPONSE_TYPE) return c.redirect(deviceConsentUrl(request.id), 303);
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
