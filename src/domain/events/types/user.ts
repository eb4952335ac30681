import { type ChangedFields, type Declarations, type Empty, declareFor } from '../declare';

/** How user.human.added reads for every way a person comes to exist (src/domain/user/event-payloads.ts). */
export interface HumanAddedPayload {
  userName: string;
  firstName: string;
  lastName: string;
  nickName?: string;
  displayName: string;
  preferredLanguage?: string;
  gender?: string;
  email: string;
  emailVerified: boolean;
  phone?: string;
  passwordHash?: string;
  passwordChangeRequired: boolean;
}

export interface MachineAddedPayload {
  userName: string;
  name: string;
  description?: string;
  accessTokenType: string;
}

/** A verification, invitation or reset code was issued (src/domain/user/codes.ts). */
export interface CodeAddedPayload {
  expiry: string;
  urlTemplate?: string;
  codeReturned: boolean;
  applicationName?: string;
}

/** The event that records a code of each kind (src/domain/user/codes.ts issues them). */
export const CODE_ADDED = {
  EMAIL_VERIFICATION: 'user.human.email.code.added',
  PHONE_VERIFICATION: 'user.human.phone.code.added',
  INVITATION: 'user.human.invite.code.added',
  PASSWORD_RESET: 'user.human.password.code.added',
  PASSKEY_REGISTRATION: 'user.human.passkey.code.added',
} as const satisfies Record<string, keyof UserEvents>;

export interface UserEvents {
  'user.human.added': HumanAddedPayload;
  'user.machine.added': MachineAddedPayload;
  /** not written by Portcullis; v1 lists it among the event types a search may ask for */
  'user.changed': ChangedFields;
  'user.username.changed': { userName: string };
  'user.human.changed': ChangedFields;
  'user.machine.changed': { name?: unknown; description?: unknown; accessTokenType?: unknown };
  'user.human.password.changed': { changeRequired: boolean };
  'user.human.password.code.added': CodeAddedPayload;
  'user.human.password.check.succeeded': Empty;
  'user.human.password.check.failed': { attempts: number };
  /** scheme names only: hash material stays out of the event log */
  'user.human.password.hash.updated': { previousScheme: string; scheme: string; reason: string };
  'user.human.email.changed': { email: string };
  'user.human.email.code.added': CodeAddedPayload;
  'user.human.email.verified': { email: string | null };
  'user.human.phone.changed': { phone: string };
  'user.human.phone.code.added': CodeAddedPayload;
  'user.human.phone.verified': Empty;
  'user.human.invite.code.added': CodeAddedPayload;
  'user.human.passkey.code.added': CodeAddedPayload;
  'user.human.invite.code.verified': Empty;
  'user.human.otp.added': Empty;
  /** the user chose to set up a second factor later (the login policy allows skipping for a while) */
  'user.human.mfa.init.skipped': Empty;
  'user.initialized': Empty;
  'user.locked': { reason?: string };
  'user.unlocked': Empty;
  'user.deactivated': Empty;
  'user.reactivated': Empty;
  'user.removed': { userName: string };
  'user.metadata.set': { key: string; value: string };
  'user.metadata.removed': { key: string };
  'user.machine.key.added': { keyId: string; type: string; expirationDate?: string; generated: boolean };
  'user.machine.key.removed': { keyId: string };
  'user.machine.secret.set': Empty;
  'user.machine.secret.removed': Empty;
  'user.personal.access.token.added': { tokenId: string; expirationDate?: string };
  'user.personal.access.token.removed': { tokenId: string };
  'user.impersonated': { actorUserId: string; clientId: string; sessionId?: string | null };
}

const user = declareFor('user');
// A user's state is part of its cached principal and, for a machine user, of its cached client entry.
const STATE = ['token-lookups', 'principal', 'machine-user'] as const;
// A machine user's credentials and names are read from its cached client entry.
const MACHINE = ['token-lookups', 'machine-user'] as const;

export const userEvents: Declarations<UserEvents> = {
  'user.human.added': user(['Person added', 'Person hinzugefügt']),
  'user.machine.added': user(['Service user added', 'Service-Benutzer hinzugefügt']),
  'user.changed': user(['User changed', 'Benutzer geändert'], 'token-lookups'),
  'user.username.changed': user(null, ...MACHINE),
  'user.human.changed': user(['Person changed', 'Person geändert'], 'token-lookups'),
  'user.machine.changed': user(['Service user changed', 'Service-Benutzer geändert'], ...MACHINE),
  'user.human.password.changed': user(['Password changed', 'Passwort geändert'], 'token-lookups'),
  'user.human.password.code.added': user(['Password reset code created', 'Passwort-Zurücksetzungscode erstellt']),
  'user.human.password.check.succeeded': user(['Password check succeeded', 'Passwortprüfung erfolgreich']),
  'user.human.password.check.failed': user(['Password check failed', 'Passwortprüfung fehlgeschlagen']),
  'user.human.password.hash.updated': user([
    'Password hash upgraded to argon2id',
    'Passwort-Hash auf argon2id aktualisiert',
  ]),
  'user.human.email.changed': user(['Email address changed', 'E-Mail-Adresse geändert'], 'token-lookups'),
  'user.human.email.code.added': user(['Email verification code created', 'E-Mail-Verifizierungscode erstellt']),
  'user.human.email.verified': user(['Email address verified', 'E-Mail-Adresse verifiziert'], 'token-lookups'),
  'user.human.phone.changed': user(['Phone number changed', 'Telefonnummer geändert'], 'token-lookups'),
  'user.human.phone.code.added': user(null),
  'user.human.phone.verified': user(['Phone number verified', 'Telefonnummer verifiziert'], 'token-lookups'),
  'user.human.invite.code.added': user(['Invitation code created', 'Einladungscode erstellt']),
  'user.human.passkey.code.added': user(['Passkey registration link created', 'Passkey-Registrierungslink erstellt']),
  'user.human.invite.code.verified': user(['Invitation accepted', 'Einladung angenommen'], 'token-lookups'),
  'user.human.otp.added': user(
    ['Authenticator app (OTP) added', 'Authenticator-App (OTP) hinzugefügt'],
    'token-lookups',
  ),
  'user.human.mfa.init.skipped': user(['MFA set-up skipped', 'MFA-Einrichtung übersprungen']),
  'user.initialized': user(['User initialized', 'Benutzer initialisiert'], 'token-lookups'),
  'user.locked': user(['User locked', 'Benutzer gesperrt'], ...STATE),
  'user.unlocked': user(['User unlocked', 'Benutzer entsperrt'], ...STATE),
  'user.deactivated': user(['User deactivated', 'Benutzer deaktiviert'], ...STATE),
  'user.reactivated': user(['User reactivated', 'Benutzer reaktiviert'], ...STATE),
  // The personal access tokens a removal deletes are evicted by deleteUser itself: their hashes are not in the event.
  'user.removed': user(['User removed', 'Benutzer entfernt'], ...STATE),
  'user.metadata.set': user(['User metadata set', 'Benutzer-Metadaten gesetzt'], 'token-lookups'),
  'user.metadata.removed': user(['User metadata removed', 'Benutzer-Metadaten entfernt'], 'token-lookups'),
  'user.machine.key.added': user(['Service user key added', 'Schlüssel des Service-Benutzers hinzugefügt'], ...MACHINE),
  'user.machine.key.removed': user(
    ['Service user key removed', 'Schlüssel des Service-Benutzers entfernt'],
    ...MACHINE,
  ),
  'user.machine.secret.set': user(['Service user secret set', 'Secret des Service-Benutzers gesetzt'], ...MACHINE),
  'user.machine.secret.removed': user(
    ['Service user secret removed', 'Secret des Service-Benutzers entfernt'],
    ...MACHINE,
  ),
  'user.personal.access.token.added': user(['Personal access token added', 'Persönliches Zugriffstoken hinzugefügt']),
  // The token's hash (the cache key) is not in the event: removePersonalAccessToken evicts it itself.
  'user.personal.access.token.removed': user(
    ['Personal access token removed', 'Persönliches Zugriffstoken entfernt'],
    'token-lookups',
  ),
  'user.impersonated': user(['User impersonated', 'Benutzer imitiert'], 'token-lookups'),
};
