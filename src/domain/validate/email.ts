// A pragmatic address check: one @, no spaces, control characters or brackets in the local part,
// a host name of one or more labels. RFC 5321: `admin@localhost` is an address (real exports have
// them); no quoted local parts.
const LOCAL_PART = String.raw`[^\s\p{Cc}@"<>()[\],;:\\]+`;
// A DNS label: letters, digits and inner hyphens, 1 to 63 characters.
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL = new RegExp(String.raw`^${LOCAL_PART}@${LABEL}(?:\.${LABEL})*$`, 'u');

/** The longest address accepted: the user table and every API cap text fields at 200 characters. */
export const MAX_EMAIL = 200;

/** The one email rule of every API, the import and the organization's first administrator. */
export function isEmailAddress(v: string): boolean {
  return v.length <= MAX_EMAIL && EMAIL.test(v);
}
