import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { applications, oidcGrants } from '../../../db/schema/index';
import { usableLogoutUri } from '../../application/logout-uris';

/** An iframe the logged-out page loads (Front-Channel Logout 1.0 §3). */
export interface FrontChannelLogout {
  clientId: string;
  url: string;
  /** for the page's CSP frame-src */
  origin: string;
}

/**
 * The front-channel logout URIs of the active applications holding a grant from the given
 * sessions, one per application and session; with `frontchannel_logout_session_required` the URI
 * carries `iss` and `sid` (§2: the RP then checks them against the ID token it holds).
 */
export async function frontChannelLogouts(db: Db, sessionIds: string[], issuer: string): Promise<FrontChannelLogout[]> {
  if (sessionIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ sessionId: oidcGrants.sessionId, clientId: oidcGrants.clientId, oidc: applications.oidc })
    .from(oidcGrants)
    .innerJoin(applications, eq(applications.id, oidcGrants.applicationId))
    .where(and(inArray(oidcGrants.sessionId, sessionIds), eq(applications.state, 'ACTIVE')));
  const out = new Map<string, FrontChannelLogout>();
  for (const r of rows) {
    const uri = r.oidc ? usableLogoutUri(r.oidc, r.oidc.frontchannelLogoutUri) : undefined;
    if (!r.oidc || !uri || !r.sessionId) continue;
    const url = new URL(uri);
    if (r.oidc.frontchannelLogoutSessionRequired) {
      url.searchParams.set('iss', issuer);
      url.searchParams.set('sid', r.sessionId);
    }
    out.set(url.toString(), { clientId: r.clientId, url: url.toString(), origin: url.origin });
  }
  return [...out.values()];
}
