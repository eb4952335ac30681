import type { Profile } from '@node-saml/node-saml';
import { type ClaimMapping, type ExternalUser, MAPPED_FIELDS } from '../external-user';
import { DEFAULT_SAML_ATTRIBUTES, NAME_ID_FORMAT_URNS, type SamlProviderConfig } from './config';
import { refuse } from './response-checks';

type Field = Exclude<keyof ClaimMapping, 'id'>;
const FIELDS = MAPPED_FIELDS.filter((f): f is Field => f !== 'id');

/** The verified assertion's NameID and attributes as Portcullis's ExternalUser. */
export function toExternalUser(profile: Profile, config: SamlProviderConfig): ExternalUser {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const user: ExternalUser = { id: userId(profile, attributes, config), emailVerified: false, raw: attributes };
  for (const field of FIELDS) {
    const names = config.mapping[field] ? [config.mapping[field]] : (DEFAULT_SAML_ATTRIBUTES[field] ?? []);
    for (const name of names) {
      const value = firstText(attributes[name]);
      if (value !== undefined) {
        user[field] = value;
        break;
      }
    }
  }
  return user;
}

/**
 * The stable id: the NameID, or the attribute the configuration names. A transient NameID changes
 * at every sign-in, so taking it as the id would make a new user each time; it is refused unless an
 * attribute holds the id.
 */
function userId(profile: Profile, attributes: Record<string, unknown>, config: SamlProviderConfig): string {
  const attribute = config.nameIdFormat === 'transient' ? config.transientMappingAttributeName : config.mapping.id;
  if (attribute) {
    const id = firstText(attributes[attribute]);
    if (!id) throw refuse(`the assertion has no ${attribute} attribute to identify the user`);
    return id;
  }
  if (profile.nameIDFormat === NAME_ID_FORMAT_URNS.transient) {
    throw refuse('the IdP sent a transient NameID; set name_id_format transient and an attribute holding the user id');
  }
  if (!profile.nameID) throw refuse('the assertion has no NameID');
  return profile.nameID;
}

function firstText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}
