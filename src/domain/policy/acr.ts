/**
 * The authentication context class references (`acr`) Portcullis reaches and honours in `acr_values`:
 * - `urn:portcullis:acr:1fa`: one factor (a password);
 * - `urn:portcullis:acr:mfa`: two factors (password and a second factor, or a passkey that verified
 *   the user) — the `amr` then holds `mfa`.
 */
export const ACR_1FA = 'urn:portcullis:acr:1fa';
export const ACR_MFA = 'urn:portcullis:acr:mfa';
export const ACR_VALUES = [ACR_1FA, ACR_MFA] as const;

/** The acr a session with these authentication methods reached. */
const acrOf = (amr: readonly string[]): string => (amr.includes('mfa') ? ACR_MFA : ACR_1FA);

/**
 * Whether a request's acr_values (in the client's order of preference) require two factors: mfa is
 * asked for and one factor is not acceptable. Values Portcullis does not know are ignored.
 */
export const acrRequiresMfa = (acrValues: readonly string[] | null | undefined): boolean =>
  !!acrValues?.includes(ACR_MFA) && !acrValues.includes(ACR_1FA);

/**
 * The acr to assert for a session with these methods. Without essential values it is the one reached.
 * With the essential values of the claims parameter (OIDC Core §5.5.1.1) it must be one of them: the
 * one reached if asked for, else 1fa when that is asked for and two factors were shown (they include
 * the first); undefined when the session meets none, which answers the request as a failed sign-in.
 */
export function acrMeeting(amr: readonly string[], essential?: readonly string[] | null): string | undefined {
  const reached = acrOf(amr);
  if (!essential?.length || essential.includes(reached)) return reached;
  if (reached === ACR_MFA && essential.includes(ACR_1FA)) return ACR_1FA;
  return undefined;
}
