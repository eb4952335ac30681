import { personalAccessTokens, users } from '../../db/schema/index';
import { randomToken, sha256Hex } from '../../crypto/random';
import { alreadyExists } from '../errors';
import { onUniqueViolation, type Scope } from '../execute';
import { newId } from '../ids';

onUniqueViolation('users_username_uq', () => alreadyExists('Errors.User.AlreadyExisting', 'the username is already taken'));
onUniqueViolation('users_pkey', () => alreadyExists('Errors.User.AlreadyExisting', 'a user with this id already exists'));

export interface AddHumanInput {
  id?: string;
  orgId: string;
  username: string;
  givenName: string;
  familyName: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: string;
  email: string;
  emailVerified: boolean;
  phone?: string;
  phoneVerified?: boolean;
  /** already hashed (argon2id, or an imported format checked by the caller) */
  passwordHash?: string;
  passwordChangeRequired?: boolean;
  state?: 'ACTIVE' | 'INITIAL' | 'INACTIVE';
}

/** Adds a human user. Checks of the org and of the input belong to the caller's command. */
export async function addHumanUser(scope: Scope, input: AddHumanInput): Promise<{ id: string; createdAt: Date }> {
  const id = input.id ?? newId();
  const displayName = input.displayName || `${input.givenName} ${input.familyName}`.trim() || input.username;
  scope.created('user', id);
  const [row] = await scope.tx
    .insert(users)
    .values({
      id,
      orgId: input.orgId,
      type: 'HUMAN',
      state: input.state ?? 'ACTIVE',
      username: input.username,
      givenName: input.givenName,
      familyName: input.familyName,
      nickName: input.nickName,
      displayName,
      preferredLanguage: input.preferredLanguage,
      gender: input.gender,
      email: input.email,
      emailVerified: input.emailVerified,
      phone: input.phone,
      phoneVerified: input.phoneVerified ?? false,
      passwordHash: input.passwordHash,
      passwordChangeRequired: input.passwordChangeRequired ?? false,
      passwordChangedAt: input.passwordHash ? new Date() : null,
    })
    .returning({ createdAt: users.createdAt });
  scope.push({
    aggregateType: 'user',
    aggregateId: id,
    type: 'user.human.added',
    payload: {
      userName: input.username,
      firstName: input.givenName,
      lastName: input.familyName,
      nickName: input.nickName,
      displayName,
      preferredLanguage: input.preferredLanguage,
      gender: input.gender,
      email: input.email,
      emailVerified: input.emailVerified,
      phone: input.phone,
      passwordHash: input.passwordHash,
      passwordChangeRequired: input.passwordChangeRequired ?? false,
    },
    resourceOwner: input.orgId,
  });
  return { id, createdAt: row.createdAt };
}

export interface AddMachineInput {
  id?: string;
  orgId: string;
  username: string;
  name: string;
  description?: string;
  accessTokenType?: 'BEARER' | 'JWT';
}

export async function addMachineUser(scope: Scope, input: AddMachineInput): Promise<{ id: string; createdAt: Date }> {
  const id = input.id ?? newId();
  scope.created('user', id);
  const [row] = await scope.tx
    .insert(users)
    .values({
      id,
      orgId: input.orgId,
      type: 'MACHINE',
      username: input.username,
      machineName: input.name,
      description: input.description,
      accessTokenType: input.accessTokenType ?? 'BEARER',
    })
    .returning({ createdAt: users.createdAt });
  scope.push({
    aggregateType: 'user',
    aggregateId: id,
    type: 'user.machine.added',
    payload: { userName: input.username, name: input.name, description: input.description, accessTokenType: input.accessTokenType ?? 'BEARER' },
    resourceOwner: input.orgId,
  });
  return { id, createdAt: row.createdAt };
}

/** Issues a personal access token; only its SHA-256 is stored, the token is returned once. */
export async function addPersonalAccessToken(
  scope: Scope,
  input: { userId: string; orgId: string; expiresAt?: Date },
): Promise<{ id: string; token: string; createdAt: Date }> {
  const id = newId();
  const token = randomToken(32, 'pcp_');
  const [row] = await scope.tx
    .insert(personalAccessTokens)
    .values({ id, userId: input.userId, tokenHash: sha256Hex(token), expiresAt: input.expiresAt })
    .returning({ createdAt: personalAccessTokens.createdAt });
  scope.push({
    aggregateType: 'user',
    aggregateId: input.userId,
    type: 'user.personal.access.token.added',
    payload: { tokenId: id, expirationDate: input.expiresAt?.toISOString() },
    resourceOwner: input.orgId,
  });
  return { id, token, createdAt: row.createdAt };
}
