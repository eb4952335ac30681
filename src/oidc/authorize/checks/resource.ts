import { checkResourceSyntax, resolveResources } from '../../../domain/oidc/resources';
import type { AuthorizeCheck } from './types';

/**
 * resource (RFC 8707 §2), may repeat: each value an absolute URI without fragment naming a known
 * project or API application (invalid_target otherwise). The tokens of the request then carry exactly
 * these URIs as their audience.
 */
export const resource: AuthorizeCheck = async ({ params, all, deps }) => {
  const values = all ? all.getAll('resource') : params.has('resource') ? [params.get('resource')!] : [];
  const uris = checkResourceSyntax(values);
  if (!uris.length) return { resource: null };
  await resolveResources(deps.database.db, uris);
  return { resource: uris };
};
