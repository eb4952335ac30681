import { isLoopbackHost } from '../../idp/oauth/config';
import { MetadataProblem } from './problem';

const MAX_URL_LENGTH = 2048;

/**
 * Whether a client_id is meant as a metadata document URL. Generated client ids never contain "://",
 * so an application's client_id can never be mistaken for one.
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The draft's rules for a client_id URL (draft-ietf-oauth-client-id-metadata-document §3): https, a
 * path, no fragment, no user name or password, no "." or ".." path segments. The URL must be written
 * exactly as the WHATWG parser would write it back, so that what is fetched is what the client named
 * (no percent-encoding or case games between the id and the document's client_id).
 */
export function checkMetadataUrl(clientId: string, development: boolean): URL {
  const fail = (why: string) => new MetadataProblem(`the client_id URL ${why}`);
  if (clientId.length > MAX_URL_LENGTH) throw fail(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw fail('is not a valid URL');
  }
  if (url.protocol !== 'https:' && !(development && url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw fail('must use https');
  if (clientId.includes('#')) throw fail('must not contain a fragment');
  if (url.username || url.password || /^https?:\/\/[^/]*@/i.test(clientId))
    throw fail('must not contain a user name or password');
  const rawPath = clientId.replace(/^https?:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  if (!rawPath || rawPath === '/') throw fail('must have a path');
  if (rawPath.split('/').some((seg) => /^(\.|%2e){1,2}$/i.test(seg)))
    throw fail('must not contain "." or ".." path segments');
  if (url.href !== clientId) throw fail('must be in normalized form (as its own parser writes it)');
  return url;
}
