import type { Ctx } from '../../context';
import { type AuthRequest, createAuthRequest } from '../auth-requests';
import type { OidcClient } from '../clients';
import { requestedOrgId } from '../scopes';
import { attachAuthRequest, type DeviceAuthorization } from './authorizations';

/**
 * The response type of an auth request that signs a user in for a device authorization: the login
 * steps, the login policy and MFA run as for any request, and its callback leads to the consent page
 * instead of a client's redirect URI (src/oidc/authorize.ts).
 */
export const DEVICE_RESPONSE_TYPE = 'device';

/** An auth request for the device authorization's client and scopes, remembered on the authorization. */
export async function startDeviceLogin(
  ctx: Ctx,
  row: DeviceAuthorization,
  client: OidcClient,
  p: { verificationUri: string; uiLocales: string[] },
): Promise<AuthRequest> {
  const request = await createAuthRequest(
    ctx,
    {
      clientId: client.clientId,
      applicationId: client.applicationId,
      redirectUri: p.verificationUri,
      responseType: DEVICE_RESPONSE_TYPE,
      responseMode: 'query',
      scopes: row.scopes,
      state: null,
      nonce: null,
      codeChallenge: null,
      dpopJkt: null,
      prompt: [],
      maxAge: null,
      acrValues: [],
      loginHint: null,
      hintUserId: null,
      uiLocales: p.uiLocales,
      orgId: requestedOrgId(row.scopes) ?? null,
      resource: null,
      // the device authorization endpoint takes no claims parameter
      claims: null,
    },
    client.orgId,
  );
  await attachAuthRequest(ctx.db, row.id, request.id);
  return request;
}
