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
export const acrOf = (amr: readonly string[]): string => (amr.includes('mfa') ? ACR_MFA : ACR_1FA);

/**
 * Whether a request's acr_values (in the client's order of preference) require two factors: mfa is
 * asked for and one factor is not acceptable. Values Portcullis does not know are ignored.
 */
export const acrRequiresMfa = (acrValues: readonly string[] | null | undefined): boolean =>
  !!acrValues?.includes(ACR_MFA) && !acrValues.includes(ACR_1FA);
