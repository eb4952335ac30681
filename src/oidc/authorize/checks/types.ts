import type { Context } from 'hono';
import type { Deps } from '../../../deps';
import type { ClaimsRequest } from '../../../domain/oidc/claims-request';
import type { OidcClient } from '../../../domain/oidc/clients';
import type { Params } from '../../params';

/** The authorization request as the endpoint received it. */
export interface AuthorizeInput {
  c: Context;
  deps: Deps;
  params: Params;
  /** names sent more than once */
  repeated: string[];
  /** every value of every parameter, for those that may repeat (`resource`); params holds the first */
  all?: URLSearchParams;
  /** the parameters came through PAR: pushed right now, or fetched by their request_uri */
  pushed?: boolean;
}

/** A client with its OIDC configuration: what the client check lets through. */
export type AuthorizeClient = OidcClient & { oidc: NonNullable<OidcClient['oidc']> };

/** The request once its client and redirect URI are known good: from here on errors go to the client. */
export interface TrustedRequest extends AuthorizeInput {
  client: AuthorizeClient;
  redirectUri: string;
  /** response_type with its values sorted ('' when missing); see checks/response-type.ts */
  responseType: string;
}

/** What the checks establish for the auth request to store; each check returns the fields it adds. */
export interface Checked {
  scopes: string[];
  codeChallenge: string | null;
  nonce: string | null;
  prompt: string[];
  maxAge: number | null;
  acrValues: string[];
  hintUserId: string | null;
  /** RFC 8707 resource URIs asked for; null: none, the default audience applies */
  resource: string[] | null;
  /** RFC 9449 §10 `dpop_jkt`: the code will only be redeemed with a proof of this key */
  dpopJkt: string | null;
  /** the `claims` parameter as parsed (OIDC Core §5.5); null: not sent */
  claims: ClaimsRequest | null;
}

/**
 * One rule of the endpoint: it passes (returning what it established, if anything) or throws the OAuth
 * error the client gets (domain/oidc/oauth-errors.ts). `found` holds what the checks before it returned.
 */
export type AuthorizeCheck = (
  req: TrustedRequest,
  found: Readonly<Checked>,
) => Partial<Checked> | undefined | Promise<Partial<Checked> | undefined>;
