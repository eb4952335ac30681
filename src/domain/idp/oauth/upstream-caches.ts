import type { ExportedJWKSCache } from 'openid-client';
import { perServer } from '../../../deps';

/**
 * What a server remembers of the upstreams its users sign in through: their discovery documents (by URL)
 * and the keys openid-client fetched (by issuer). Declared apart from the protocol code, which loads only
 * with the first upstream sign-in (src/domain/idp/protocols.ts).
 */
export interface UpstreamCaches {
  discovery: Map<string, { at: number; body: string; contentType: string }>;
  jwks: Map<string, ExportedJWKSCache>;
}

export const newUpstreamCaches = (): UpstreamCaches => ({ discovery: new Map(), jwks: new Map() });

/** Each server's own. */
export const upstreamCaches = perServer(newUpstreamCaches);
