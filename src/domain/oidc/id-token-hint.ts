import { getInstanceSettings } from '../instance/settings';
import { findClient } from './clients';
import { isMetadataDocumentUrl } from './client-metadata/url';
import { verifyOwnJwt } from './web-keys';
import type { Source } from '../context';

/** What an id_token_hint says: the user, the client it was issued to and the session (when it names one). */
export interface IdTokenHint {
  sub: string;
  azp: string;
  sid?: string;
}

/**
 * Claims the other JWTs the instance signs carry and an ID token never does: JWT access tokens
 * (`client_id`, `scope`; RFC 9068) and logout tokens (`events`; Back-Channel Logout 1.0 §2.4).
 */
const FOREIGN_CLAIMS = ['client_id', 'scope', 'events'] as const;

/**
 * An id_token_hint (at authorize and end_session) is an ID token this instance issued — expired ones
 * too, as the hint is about who, not when. The signature alone does not say so: the same keys sign
 * JWT access tokens (`typ: at+jwt`) and logout tokens (`typ: logout+jwt`), which a relying party or a
 * resource server holds for a user and could pass off as that user's ID token (at end_session, to
 * skip the confirmation). So the header must say `typ: JWT`, the payload must carry none of those
 * tokens' claims, and its `azp` must be one of its audiences and a client of this instance.
 * Answers undefined for anything else.
 */
export async function verifyIdTokenHint(
  src: Source,
  env: { instanceId: string; issuer: string; masterKey: Buffer },
  token: string,
): Promise<IdTokenHint | undefined> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await verifyOwnJwt(src, env.masterKey, token, {
      issuer: env.issuer,
      typ: 'JWT',
      ignoreExpiration: true,
    }));
  } catch {
    return undefined;
  }
  const { sub, azp, sid } = payload;
  if (typeof sub !== 'string' || typeof azp !== 'string') return undefined;
  if (FOREIGN_CLAIMS.some((claim) => claim in payload)) return undefined;
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.includes(azp) || !(await isClient(src, env.instanceId, azp))) return undefined;
  return { sub, azp, ...(typeof sid === 'string' ? { sid } : {}) };
}

/** A registered application, or a metadata-document client while the instance accepts them. */
async function isClient(src: Source, instanceId: string, clientId: string): Promise<boolean> {
  if (isMetadataDocumentUrl(clientId)) return (await getInstanceSettings(src, instanceId)).clientIdMetadataDocuments;
  return (await findClient(src, clientId)) !== undefined;
}
