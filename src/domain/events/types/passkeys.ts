import { type Declarations, declareFor } from '../declare';

/**
 * The user's WebAuthn credentials: passkeys (resident key, user verification: a sign-in without
 * password) and security keys (a second factor), (the registration link's code
 * is a user code: `user.human.passkey.code.added` in user.ts). No payload carries a key or a challenge.
 */
export interface PasskeyEvents {
  'user.human.passkey.added': { passkeyId: string; passwordless: boolean; rpId: string; byCode: boolean };
  'user.human.passkey.verified': { passkeyId: string; passwordless: boolean; rpId: string; byCode: boolean };
  'user.human.passkey.removed': { passkeyId: string };
}

const user = declareFor('user');

export const passkeyEvents: Declarations<PasskeyEvents> = {
  'user.human.passkey.added': user([
    'Passkey or security key registration started',
    'Registrierung eines Passkeys oder Sicherheitsschlüssels begonnen',
  ]),
  'user.human.passkey.verified': user([
    'Passkey or security key registered',
    'Passkey oder Sicherheitsschlüssel registriert',
  ]),
  'user.human.passkey.removed': user(['Passkey or security key removed', 'Passkey oder Sicherheitsschlüssel entfernt']),
};
