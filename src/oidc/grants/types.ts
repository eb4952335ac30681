import type { Context } from 'hono';
import type { Deps } from '../../deps';
import type { OidcEnv } from '../../domain/oidc/env';
import type { TokenResponse } from '../../domain/oidc/token-issuance';
import type { AuthenticatedClient, ClientAuthMethod } from '../client-auth';
import type { Params } from '../params';
import { invalidRequest } from '../../domain/oidc/oauth-errors';
import { checkResourceSyntax, type Resource, resolveResources } from '../../domain/oidc/resources';

export interface GrantRequest {
  c: Context;
  deps: Deps;
  env: OidcEnv;
  params: Params;
  /** every `resource` value (RFC 8707); params holds only the first */
  resources: string[];
  /** undefined only for grants with `clientAuth: 'optional'` called without client authentication */
  client: AuthenticatedClient | undefined;
  /** RFC 9449: the key of the request's valid DPoP proof; the issued tokens are bound to it */
  dpop: { jkt: string } | undefined;
}

/**
 * One grant type of the token endpoint. The endpoint parses the form, authenticates the client with
 * the methods listed here (shared helper), then calls `handle`. A new grant is a new file in this
 * folder plus one line in index.ts.
 */
export interface GrantType {
  authMethods: ClientAuthMethod[];
  /** 'optional': the grant authenticates by itself (JWT profile); client authentication only if sent */
  clientAuth?: 'required' | 'optional';
  /** the application's grant_types entry that allows it (unauthorized_client otherwise) */
  appGrantType?: string;
  handle(req: GrantRequest): Promise<TokenResponse>;
}

export function param(req: GrantRequest, name: string): string | undefined {
  const v = req.params.get(name);
  return v === '' ? undefined : v;
}

/**
 * The audience asked for with `resource` (RFC 8707), resolved (invalid_target for a malformed or
 * unknown one); undefined when none was sent.
 */
export async function requestedResources(req: GrantRequest): Promise<Resource[] | undefined> {
  const uris = checkResourceSyntax(req.resources);
  return uris.length ? resolveResources(req.deps.database.db, uris) : undefined;
}

/**
 * RFC 9449 §5: the key a new refresh token is bound to. Only public clients' refresh tokens are bound;
 * a confidential client's are already tied to its client authentication.
 */
export function refreshJktOf(req: GrantRequest): string | undefined {
  return req.client?.method === 'none' ? req.dpop?.jkt : undefined;
}

/** A parameter the grant cannot do without (missing or empty: invalid_request naming it). */
export function requiredParam(req: GrantRequest, name: string): string {
  const v = param(req, name);
  if (v === undefined) throw invalidRequest(`${name} is required`);
  return v;
}
