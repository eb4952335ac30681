import { resolveClient } from '../../../domain/oidc/client-metadata/resolve';
import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import { clientSource } from '../../env';
import type { AuthorizeClient, AuthorizeInput } from './types';

/**
 * An active OIDC client behind one client_id — an application, or a client ID metadata document when
 * the instance accepts them; until it is known, nobody may be redirected anywhere, so every failure
 * (a document that cannot be fetched or used included) is the error page.
 */
export async function client({ deps, params, repeated }: AuthorizeInput): Promise<AuthorizeClient> {
  const clientId = params.get('client_id');
  if (!clientId || repeated.includes('client_id')) throw invalidRequest('client_id is missing or repeated');
  const found = await resolveClient(clientSource(deps), clientId);
  if (!found.client) throw invalidRequest(found.problem);
  if (!found.client.active || !found.client.oidc) throw invalidRequest('unknown or inactive client');
  return found.client as AuthorizeClient;
}
