import { DomainError } from '../errors';

/**
 * A URL or host a caller chose that the outbound rule does not let the server reach: not https, an
 * address inside the server's network, a redirect, a body over the size cap. It is the caller's choice
 * that is wrong, so it is failed_precondition (400) wherever it surfaces, never a server error. The
 * message names what was being fetched and why, never anything else about this server's network.
 */
export class OutboundRefused extends DomainError {
  constructor(
    /** what was being fetched, as the caller named it ("the SAML metadata") */
    readonly purpose: string,
    /** why, without the purpose ("answered a redirect (HTTP 302), which is not followed") */
    readonly why: string,
  ) {
    super('failed_precondition', 'Errors.Outbound.Refused', `${purpose} ${why}`);
  }
}
