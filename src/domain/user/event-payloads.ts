import type { HumanAddedPayload, MachineAddedPayload } from '../events/types/user';

/**
 * The payloads of `user.human.added` and `user.machine.added`, built in one place for every way a
 * user comes to exist (CreateUser, v1 routes, the bulk import), so event search shows them alike.
 * The specification requires displayName, email, userName and the password hash.
 */
export interface HumanAddedFields {
  username: string;
  givenName: string;
  familyName: string;
  nickName?: string | null;
  displayName: string;
  preferredLanguage?: string | null;
  gender?: string | null;
  email: string;
  emailVerified: boolean;
  phone?: string | null;
  passwordHash?: string | null;
  passwordChangeRequired?: boolean;
}

export function humanAddedPayload(u: HumanAddedFields): HumanAddedPayload {
  return {
    userName: u.username,
    firstName: u.givenName,
    lastName: u.familyName,
    nickName: u.nickName ?? undefined,
    displayName: u.displayName,
    preferredLanguage: u.preferredLanguage ?? undefined,
    gender: u.gender ?? undefined,
    email: u.email,
    emailVerified: u.emailVerified,
    phone: u.phone ?? undefined,
    passwordHash: u.passwordHash ?? undefined,
    passwordChangeRequired: u.passwordChangeRequired ?? false,
  };
}

export function machineAddedPayload(m: {
  username: string;
  name: string;
  description?: string | null;
  accessTokenType?: string;
}): MachineAddedPayload {
  return {
    userName: m.username,
    name: m.name,
    description: m.description ?? undefined,
    accessTokenType: m.accessTokenType ?? 'BEARER',
  };
}
