import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { verifySecret } from '../crypto/secrets';
import {
  deleteRegisteredClient,
  readRegisteredClient,
  type RegisteredClient,
  type RegistrationPolicy,
  registerClient,
  updateRegisteredClient,
} from '../domain/application/registration/commands';
import {
  APPLICATION_TYPE_NAMES,
  AUTH_METHOD_NAMES,
  externalName,
  GRANT_TYPE_NAMES,
  RESPONSE_TYPE_NAMES,
} from '../domain/application/registration/names';
import { getInstanceSettings, type InstanceSettings } from '../domain/instance/settings';
import { invalidClientMetadata, invalidToken } from '../domain/oidc/oauth-errors';
import { oidcCtx } from './env';
import { OAuthError } from './errors';
import { publicJwk } from './register-keys';

const SERVICE = 'oidc/register';

/** POST /oauth/v2/register (RFC 7591 §3): 201 with the client's credentials and its metadata. */
export async function registrationEndpoint(c: Context, deps: Deps): Promise<Response> {
  const settings = await registrationSettings(deps);
  if (settings.dynamicRegistration === 'INITIAL_ACCESS_TOKEN') {
    const token = bearer(c);
    if (!token || !verifySecret(settings.dynamicRegistrationInitialAccessTokenHash, token))
      throw invalidToken('registration needs a valid initial access token (Authorization: Bearer)');
  }
  const body = await jsonBody(c);
  const client = await registerClient(oidcCtx(deps, SERVICE), policyOf(settings), body);
  return answer(c, metadataOut(deps, client), 201);
}

/** GET, PUT and DELETE /oauth/v2/register/<client_id> (RFC 7592 §2) with the registration access token. */
export async function clientConfigurationEndpoint(c: Context, deps: Deps): Promise<Response> {
  const settings = await registrationSettings(deps);
  const clientId = c.req.param('clientId') ?? '';
  const token = bearer(c) ?? '';
  const ctx = oidcCtx(deps, SERVICE);
  if (c.req.method === 'DELETE') {
    await deleteRegisteredClient(ctx, clientId, token);
    c.header('Cache-Control', 'no-store');
    return c.body(null, 204);
  }
  if (c.req.method === 'PUT') {
    // The token is checked before the body is read, so an unauthenticated caller learns nothing from it.
    await readRegisteredClient(ctx, clientId, token);
    const body = await jsonBody(c);
    return answer(c, metadataOut(deps, await updateRegisteredClient(ctx, policyOf(settings), clientId, token, body)));
  }
  return answer(c, metadataOut(deps, await readRegisteredClient(ctx, clientId, token)));
}

/**
 * The instance's settings, or 403 while registration is off: RFC 7591 leaves that answer open, and
 * access_denied with 403 says plainly that this server does not take registrations.
 */
async function registrationSettings(deps: Deps): Promise<InstanceSettings> {
  const s = await getInstanceSettings(sourceOf(deps), deps.instanceId);
  if (s.dynamicRegistration === 'OFF')
    throw new OAuthError('access_denied', 'dynamic client registration is turned off on this server', 403);
  return s;
}

function policyOf(s: InstanceSettings): RegistrationPolicy {
  return { projectId: s.dynamicRegistrationProjectId, allowedGrantTypes: s.dynamicRegistrationGrantTypes };
}

function bearer(c: Context): string | undefined {
  const m = /^Bearer ([\x21-\x7e]+)$/i.exec(c.req.header('authorization') ?? '');
  return m?.[1];
}

/** The body as JSON; anything else (garbage, a wrong media type) is invalid_client_metadata, not a 500. */
async function jsonBody(c: Context): Promise<unknown> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
    throw invalidClientMetadata('the request body must be application/json');
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw invalidClientMetadata('the request body is not valid JSON');
  }
}

function answer(c: Context, body: object, status: 200 | 201 = 200): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  return c.json(body, status);
}

/** RFC 7591 §3.2.1 / RFC 7592 §3: the client information response. */
function metadataOut(deps: Deps, client: RegisteredClient): Record<string, unknown> {
  const issuer = deps.config.externalUrl;
  const o = client.oidc;
  const out: Record<string, unknown> = {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.issuedAt.getTime() / 1000),
  };
  if (client.clientSecret) out.client_secret = client.clientSecret;
  if (client.hasSecret) out.client_secret_expires_at = 0;
  if (client.registrationAccessToken) out.registration_access_token = client.registrationAccessToken;
  out.registration_client_uri = `${issuer}/oauth/v2/register/${encodeURIComponent(client.clientId)}`;
  Object.assign(out, {
    client_name: client.name,
    redirect_uris: o.redirectUris,
    post_logout_redirect_uris: o.postLogoutRedirectUris,
    grant_types: o.grantTypes.map((g) => externalName(GRANT_TYPE_NAMES, g) ?? g),
    response_types: o.responseTypes.map((r) => externalName(RESPONSE_TYPE_NAMES, r) ?? r),
    token_endpoint_auth_method: externalName(AUTH_METHOD_NAMES, o.authMethodType),
    application_type: externalName(APPLICATION_TYPE_NAMES, o.applicationType) ?? 'web',
    dpop_bound_access_tokens: !!o.dpopBoundAccessTokens,
  });
  if (client.keys.length > 0) out.jwks = { keys: client.keys.map(publicJwk) };
  return out;
}
