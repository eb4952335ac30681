import { type CreateUserInput } from '../../domain/user/create-user-input';
import type { UserFilter, UserView } from '../../domain/user/queries';
import { invalidArgument } from '../../domain/errors';
import { textQuery } from '../list';
import { type Obj, bool, enumValue, obj, objects, str, strings } from '../shape';

const USER_STATES: Record<string, string> = {
  ACTIVE: 'USER_STATE_ACTIVE',
  INACTIVE: 'USER_STATE_INACTIVE',
  LOCKED: 'USER_STATE_LOCKED',
  INITIAL: 'USER_STATE_INITIAL',
  REMOVED: 'USER_STATE_DELETED',
};

/** v1 AddHumanUser / ImportHumanUser body → the v2 CreateUser input (in state INITIAL when v1 would). */
export function toCreateHuman(orgId: string, body: Obj, kind: 'add' | 'import'): CreateUserInput {
  const profile = obj(body, 'profile', '') ?? {};
  const email = obj(body, 'email', '') ?? {};
  const phone = obj(body, 'phone', '');
  const hashed = obj(body, 'hashedPassword', '');
  const password = kind === 'add' ? str(body, 'initialPassword', '') : str(body, 'password', '');
  const changeRequired = kind === 'import' ? (bool(body, 'passwordChangeRequired', '') ?? false) : false;
  const emailVerified = bool(email, 'isEmailVerified', 'email') ?? false;
  const phoneNumber = phone ? str(phone, 'phone', 'phone') : undefined;
  return {
    orgId,
    username: str(body, 'userName', '') ?? '',
    initialState: true,
    human: {
      profile: {
        givenName: str(profile, 'firstName', 'profile') ?? '',
        familyName: str(profile, 'lastName', 'profile') ?? '',
        nickName: str(profile, 'nickName', 'profile') || undefined,
        displayName: str(profile, 'displayName', 'profile') || undefined,
        preferredLanguage: str(profile, 'preferredLanguage', 'profile') || undefined,
        gender: enumValue(profile, 'gender', 'profile', 'GENDER_'),
      },
      email: {
        email: str(email, 'email', 'email') ?? '',
        verification: emailVerified ? { verified: true } : { send: {} },
      },
      phone: phoneNumber
        ? {
            phone: phoneNumber,
            verification: bool(phone!, 'isPhoneVerified', 'phone') ? { verified: true } : { none: true },
          }
        : undefined,
      password: hashed
        ? { hash: str(hashed, 'value', 'hashedPassword') ?? '', changeRequired }
        : password
          ? { password, changeRequired }
          : undefined,
    },
  };
}

export function toCreateMachine(orgId: string, body: Obj): CreateUserInput {
  return {
    orgId,
    username: str(body, 'userName', '') ?? '',
    machine: {
      name: str(body, 'name', '') ?? '',
      description: str(body, 'description', '') || undefined,
      accessTokenType: enumValue(body, 'accessTokenType', '', 'ACCESS_TOKEN_TYPE_') === 'JWT' ? 'JWT' : 'BEARER',
    },
  };
}

/** A user in the v1 shape (`user.v1.User`). */
export function toV1User(u: UserView, sequence: number) {
  return {
    id: u.id,
    details: {
      sequence: String(sequence),
      creationDate: u.createdAt.toISOString(),
      changeDate: u.changedAt.toISOString(),
      resourceOwner: u.orgId,
    },
    state: USER_STATES[u.state] ?? 'USER_STATE_UNSPECIFIED',
    userName: u.username,
    loginNames: u.loginNames,
    preferredLoginName: u.preferredLoginName,
    ...(u.type === 'HUMAN'
      ? {
          human: {
            profile: {
              firstName: u.givenName ?? '',
              lastName: u.familyName ?? '',
              nickName: u.nickName ?? '',
              displayName: u.displayName ?? '',
              preferredLanguage: u.preferredLanguage ?? '',
              gender: u.gender ? `GENDER_${u.gender}` : 'GENDER_UNSPECIFIED',
            },
            email: { email: u.email ?? '', isEmailVerified: u.emailVerified },
            phone: { phone: u.phone ?? '', isPhoneVerified: u.phoneVerified },
            ...(u.passwordChangedAt ? { passwordChanged: u.passwordChangedAt.toISOString() } : {}),
          },
        }
      : {
          machine: {
            name: u.machineName ?? '',
            description: u.description ?? '',
            hasSecret: Boolean(u.secretHash),
            accessTokenType: u.accessTokenType === 'JWT' ? 'ACCESS_TOKEN_TYPE_JWT' : 'ACCESS_TOKEN_TYPE_BEARER',
          },
        }),
  };
}

const USER_QUERIES: Record<string, (v: Obj, path: string) => UserFilter> = {
  userNameQuery: (v, path) => ({ username: textQuery(v, 'userName', path) }),
  emailQuery: (v, path) => ({ email: textQuery(v, 'emailAddress', path) }),
  displayNameQuery: (v, path) => ({ displayName: textQuery(v, 'displayName', path) }),
  loginNameQuery: (v, path) => ({ loginName: str(v, 'loginName', path) ?? '' }),
  inUserIdsQuery: (v, path) => ({ userIds: strings(v, 'userIds', path) }),
  stateQuery: (v, path) => {
    const s = enumValue(v, 'state', path, 'USER_STATE_');
    const state = s === 'DELETED' ? 'REMOVED' : s;
    if (
      state !== 'ACTIVE' &&
      state !== 'INACTIVE' &&
      state !== 'LOCKED' &&
      state !== 'INITIAL' &&
      state !== 'REMOVED'
    ) {
      throw invalidArgument('Errors.Query.Invalid', `${path}.state is not a user state`);
    }
    return { state };
  },
  typeQuery: (v, path) => {
    const t = enumValue(v, 'type', path, 'TYPE_');
    if (t !== 'HUMAN' && t !== 'MACHINE')
      throw invalidArgument('Errors.Query.Invalid', `${path}.type must be TYPE_HUMAN or TYPE_MACHINE`);
    return { type: t };
  },
};

/** v1 ListUsers `queries[]` → v2 user filters (all of them must match). */
export function toUserFilters(body: Obj): UserFilter[] {
  return objects(body, 'queries', '').map((q, i): UserFilter => {
    const path = `queries[${i}]`;
    for (const [key, convert] of Object.entries(USER_QUERIES)) {
      const v = obj(q, key, path);
      if (v) return convert(v, `${path}.${key}`);
    }
    throw invalidArgument('Errors.Query.Invalid', `${path} is not a supported user query`);
  });
}
