import { type SigningKey, signJwt } from '../../../crypto/keys/signing';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Back-Channel Logout 1.0 §2.4 recommends a short lifetime; two minutes covers clock skew. */
const LIFETIME_S = 120;

/**
 * A logout token (Back-Channel Logout 1.0 §2.4): `typ: logout+jwt` so it cannot pass for an ID
 * token, the logout event, `sub` and `sid` of the ended session, and never a `nonce`.
 */
export async function signLogoutToken(
  key: SigningKey,
  p: { issuer: string; clientId: string; userId: string; sessionId: string; jti: string },
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return signJwt(
    key,
    {
      iss: p.issuer,
      aud: p.clientId,
      iat,
      exp: iat + LIFETIME_S,
      jti: p.jti,
      sub: p.userId,
      sid: p.sessionId,
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    'logout+jwt',
  );
}
