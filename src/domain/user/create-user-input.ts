import type { HumanProfile } from './add-users';
import { type PasswordInput } from './password';
import { type MetadataEntry } from './validate';
import { type NewUser } from './add-users';

/** What CreateUser takes and answers; shared by the command, its batch writer and the transports. */
export type EmailVerification = { send: { urlTemplate?: string } } | { return: true } | { verified: true };
export type PhoneVerification = { return: true } | { verified: true } | { none: true };

export interface CreateHumanInput {
  /** required; optional in the type because the command itself reports it missing */
  profile?: HumanProfile;
  /** required, like profile */
  email?: { email: string; verification: EmailVerification };
  phone?: { phone: string; verification: PhoneVerification };
  password?: PasswordInput;
  metadata?: MetadataEntry[];
}

export interface CreateUserInput {
  orgId: string;
  userId?: string;
  username?: string;
  human?: CreateHumanInput;
  machine?: { name: string; description?: string; accessTokenType?: 'BEARER' | 'JWT' };
  /**
   * Only for the v1 compatibility layer: v1 creates humans without a password or verified email in
   * state INITIAL. v2 users are always ACTIVE.
   */
  initialState?: boolean;
}

export interface CreateUserResult {
  id: string;
  createdAt: Date;
  emailCode?: string;
  phoneCode?: string;
}
/** A validated CreateUser, ready to be written (alone or in a batch with others). */
export interface PreparedCreate {
  user: NewUser;
  metadata?: MetadataEntry[];
  emailCode?: { send: { urlTemplate?: string } } | { return: true };
  phoneCode?: boolean;
}
