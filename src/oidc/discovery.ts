import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { SIGNING_ALGORITHMS } from '../crypto/keys/signing';
import { CLAIMS, STANDARD_SCOPES } from '../domain/oidc/scopes';
import { LOCALES } from '../login/i18n';
import { PROMPTS } from './authorize/checks/prompt';
import { GRANTS } from './grants/index';
import { CLIENT_JWT_ALGS } from '../domain/oidc/client-assertion';
import { ACR_VALUES } from '../domain/policy/acr';
import { getInstanceSettings } from '../domain/instance/settings';
import { REQUEST_OBJECT_ALGS } from '../domain/oidc/request-object';
import { DPOP_ALGS } from '../domain/oidc/dpop/proof';

/** GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0). */
export async function discoveryEndpoint(c: Context, deps: Deps) {
  const issuer = deps.config.externalUrl;
  // Read from the settings cache, which UpdateInstanceSettings evicts in every replica on commit.
  const settings = await getInstanceSettings(sourceOf(deps), deps.instanceId);
  c.header('Cache-Control', 'public, max-age=300');
  return c.json({
    issuer,
    authorization_endpoint: `${issuer}/oauth/v2/authorize`,
    token_endpoint: `${issuer}/oauth/v2/token`,
    introspection_endpoint: `${issuer}/oauth/v2/introspect`,
    userinfo_endpoint: `${issuer}/oidc/v1/userinfo`,
    revocation_endpoint: `${issuer}/oauth/v2/revoke`,
    pushed_authorization_request_endpoint: `${issuer}/oauth/v2/par`,
    // Per client (the application setting), so the instance as a whole does not require it.
    require_pushed_authorization_requests: false,
    end_session_endpoint: `${issuer}/oidc/v1/end_session`,
    device_authorization_endpoint: `${issuer}/oauth/v2/device_authorization`,
    jwks_uri: `${issuer}/oauth/v2/keys`,
    ...(settings.dynamicRegistration === 'OFF' ? {} : { registration_endpoint: `${issuer}/oauth/v2/register` }),
    // draft-ietf-oauth-client-id-metadata-document: an https URL as client_id names its metadata
    ...(settings.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    // Only what is issued: no address claims exist, so no `address` scope is advertised.
    scopes_supported: STANDARD_SCOPES.filter((s) => s !== 'address'),
    response_types_supported: ['code', 'id_token', 'id_token token'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    grant_types_supported: [...Object.keys(GRANTS), 'implicit'],
    subject_types_supported: ['public'],
    acr_values_supported: [...ACR_VALUES],
    id_token_signing_alg_values_supported: SIGNING_ALGORITHMS,
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: CLIENT_JWT_ALGS,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
    introspection_endpoint_auth_signing_alg_values_supported: CLIENT_JWT_ALGS,
    revocation_endpoint_auth_methods_supported: [
      'none',
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
    ],
    revocation_endpoint_auth_signing_alg_values_supported: CLIENT_JWT_ALGS,
    claims_supported: [
      'sub',
      'aud',
      'exp',
      'iat',
      'iss',
      'auth_time',
      'nonce',
      'amr',
      'acr',
      'at_hash',
      'act',
      'azp',
      'sid',
      'scope',
      'client_id',
      'name',
      'given_name',
      'family_name',
      'nickname',
      'preferred_username',
      'gender',
      'locale',
      'updated_at',
      'email',
      'email_verified',
      'phone_number',
      'phone_number_verified',
      CLAIMS.roles,
      CLAIMS.orgId,
      CLAIMS.metadata,
    ],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: PROMPTS,
    ui_locales_supported: LOCALES,
    claims_parameter_supported: true,
    request_parameter_supported: true,
    // Only for the URNs the PAR endpoint hands out: a request_uri that is a URL is never fetched
    // (request_uri_not_supported).
    request_uri_parameter_supported: false,
    request_object_signing_alg_values_supported: REQUEST_OBJECT_ALGS,
    authorization_response_iss_parameter_supported: true,
    // RFC 9449 §5.1: proofs are accepted at the token endpoint, userinfo and the API
    dpop_signing_alg_values_supported: DPOP_ALGS,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
  });
}
