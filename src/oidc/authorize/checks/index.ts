import { acrValues } from './acr-values';
import { claims } from './claims';
import { client } from './client';
import { dpopJkt, dpopOnlyCode } from './dpop';
import { idTokenHint } from './id-token-hint';
import { maxAge } from './max-age';
import { nonce } from './nonce';
import { pkce } from './pkce';
import { prompt } from './prompt';
import { pushedRequest } from './pushed-request';
import { redirectUri } from './redirect-uri';
import { repeatedParameters } from './repeated-parameters';
import { resource } from './resource';
import { responseType, responseTypeOf } from './response-type';
import { scope } from './scope';
import { securityProfile } from './security-profile';
import type { AuthorizeCheck, AuthorizeInput, Checked, TrustedRequest } from './types';

/**
 * First the client, then its redirect URI. Until both are known good a failure is an error page
 * (HTTP 400), never a redirect: an unknown client or a foreign URI must not turn us into an open
 * redirector.
 */
export async function trustedRequest(input: AuthorizeInput): Promise<TrustedRequest> {
  const found = await client(input);
  return {
    ...input,
    client: found,
    redirectUri: redirectUri(input, found),
    responseType: responseTypeOf(input.params),
  };
}

/**
 * Then the rules of the request, in this order: when several things are wrong, the first failing
 * check's error is the one the client gets (at its redirect URI, with state and iss). A new rule is a
 * new file in this folder and one line here.
 */
const CHECKS: AuthorizeCheck[] = [
  repeatedParameters,
  pushedRequest,
  securityProfile,
  responseType,
  dpopOnlyCode,
  scope,
  pkce,
  nonce,
  prompt,
  maxAge,
  acrValues,
  resource,
  dpopJkt,
  idTokenHint, // after prompt: with prompt=none a bad hint is login_required
  claims, // after acrValues and idTokenHint: an essential acr replaces acr_values, a sub value must match the hint
];

const NOTHING_YET: Checked = {
  scopes: [],
  codeChallenge: null,
  nonce: null,
  prompt: [],
  maxAge: null,
  acrValues: [],
  hintUserId: null,
  resource: null,
  dpopJkt: null,
  claims: null,
};

/** Runs every check; the first to fail throws its OAuth error. */
export async function runChecks(req: TrustedRequest): Promise<Checked> {
  let found = NOTHING_YET;
  for (const check of CHECKS) found = { ...found, ...(await check(req, found)) };
  return found;
}
