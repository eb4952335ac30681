import { findClient } from '../../../domain/oidc/clients';
import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeClient, AuthorizeInput } from './types';

/** An active OIDC application behind one client_id; until it is known, nobody may be redirected anywhere. */
export async function client({ deps, params, repeated }: AuthorizeInput): Promise<AuthorizeClient> {
  const clientId = params.get('client_id');
  if (!clientId || repeated.includes('client_id')) throw invalidRequest('client_id is missing or repeated');
  const found = await findClient(deps.database.db, clientId);
  if (!found?.active || !found.oidc) throw invalidRequest('unknown or inactive client');
  return found as AuthorizeClient;
}
