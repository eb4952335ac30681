import { splitScopes } from '../../../domain/oidc/scopes';
import type { AuthorizeCheck } from './types';

/**
 * acr_values (OIDC Core §3.1.2.1), kept in the client's order: a request whose values ask for
 * `urn:portcullis:acr:mfa` only is answered once the session has two factors (domain/policy/acr.ts).
 * Values we do not know are kept and ignored, as the parameter is a voluntary claim. An essential `acr`
 * in the claims parameter takes their place (checks/claims.ts).
 */
export const acrValues: AuthorizeCheck = ({ params }) => ({ acrValues: splitScopes(params.get('acr_values')) });
