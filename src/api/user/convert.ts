import type { MessageInitShape } from '@bufbuild/protobuf';
import type { TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import {
  AccessTokenType,
  Gender,
  type HashedPassword,
  type Password,
  type SetHumanEmail,
  type SetHumanPhone,
  UserState,
  type UserSchema,
  UserType,
} from '../../../gen/portcullis/user/v2/user_pb';
import type { UserFilter as UserFilterMsg } from '../../../gen/portcullis/user/v2/user_service_pb';
import { invalidArgument } from '../../domain/errors';
import type { EmailVerification, PhoneVerification } from '../../domain/user/create-user-input';
import type { PasswordInput } from '../../domain/user/password';
import type { UserFilter, UserView } from '../../domain/user/queries';
import { textMethodIn } from '../convert/list';
import { datesOut, ts } from '../convert/time';

// Conversions between the v2 messages and the domain's inputs and records. No rules live here.

const GENDERS: Record<number, string | undefined> = {
  [Gender.UNSPECIFIED]: undefined,
  [Gender.FEMALE]: 'FEMALE',
  [Gender.MALE]: 'MALE',
  [Gender.DIVERSE]: 'DIVERSE',
};
export const genderIn = (g: Gender | undefined) => (g === undefined ? undefined : (GENDERS[g] ?? ''));
const genderOut = (g: string | null) =>
  g === 'FEMALE' ? Gender.FEMALE : g === 'MALE' ? Gender.MALE : g === 'DIVERSE' ? Gender.DIVERSE : Gender.UNSPECIFIED;

const accessTokenTypeIn = (t: AccessTokenType | undefined) =>
  t === AccessTokenType.JWT ? ('JWT' as const) : t === AccessTokenType.BEARER ? ('BEARER' as const) : undefined;
const accessTokenTypeOut = (t: string | null) => (t === 'JWT' ? AccessTokenType.JWT : AccessTokenType.BEARER);

const STATES_OUT: Record<string, UserState> = {
  ACTIVE: UserState.ACTIVE,
  INACTIVE: UserState.INACTIVE,
  LOCKED: UserState.LOCKED,
  REMOVED: UserState.DELETED,
  // v2 has no initial state (§3.2): a v1 user still waiting for its password or email is active here.
  INITIAL: UserState.ACTIVE,
};
const STATES_IN: Record<number, 'ACTIVE' | 'INACTIVE' | 'LOCKED' | 'REMOVED'> = {
  [UserState.ACTIVE]: 'ACTIVE',
  [UserState.INACTIVE]: 'INACTIVE',
  [UserState.LOCKED]: 'LOCKED',
  [UserState.DELETED]: 'REMOVED',
};

/** A code returned in the response, or sent (with the link's URL template when the request gives one). */
export function codeDeliveryIn(
  m:
    | { case: 'returnCode'; value: unknown }
    | { case: 'sendLink' | 'sendCode'; value: { urlTemplate?: string } }
    | { case: undefined; value?: undefined },
): { return: true } | { send: { urlTemplate?: string } } {
  if (m.case === 'returnCode') return { return: true };
  return { send: { urlTemplate: m.case === undefined ? undefined : m.value.urlTemplate } };
}

export function emailVerificationIn(e: Pick<SetHumanEmail, 'verification'>): EmailVerification {
  switch (e.verification.case) {
    case 'returnCode':
      return { return: true };
    case 'isVerified':
      return e.verification.value ? { verified: true } : { send: {} };
    case 'sendCode':
      return { send: { urlTemplate: e.verification.value.urlTemplate } };
    default:
      return { send: {} };
  }
}

function phoneVerificationIn(p: SetHumanPhone): PhoneVerification {
  if (p.verification.case === 'returnCode') return { return: true };
  if (p.verification.case === 'isVerified' && p.verification.value) return { verified: true };
  return { none: true };
}

/** A profile of CreateUser (every name given) or of UpdateUser (only what changes). */
interface ProfileMessage {
  givenName?: string;
  familyName?: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: Gender;
}

function profileIn<P extends ProfileMessage>(p: P) {
  return {
    givenName: p.givenName as P['givenName'],
    familyName: p.familyName as P['familyName'],
    nickName: p.nickName,
    displayName: p.displayName,
    preferredLanguage: p.preferredLanguage,
    gender: genderIn(p.gender),
  };
}

function passwordIn(
  p: { case: 'password'; value: Password } | { case: 'hashedPassword'; value: HashedPassword } | { case: undefined },
): PasswordInput | undefined {
  if (p.case === 'password') return { password: p.value.password, changeRequired: p.value.changeRequired };
  if (p.case === 'hashedPassword') return { hash: p.value.hash, changeRequired: p.value.changeRequired };
  return undefined;
}

/** What CreateUser and UpdateUser say of a human: profile, email, phone and password, as the domain takes them. */
export function humanIn<P extends ProfileMessage>(h: {
  profile?: P;
  email?: SetHumanEmail;
  phone?: SetHumanPhone;
  passwordType: Parameters<typeof passwordIn>[0];
}) {
  return {
    profile: h.profile && profileIn(h.profile),
    email: h.email && { email: h.email.email, verification: emailVerificationIn(h.email) },
    phone: h.phone && { phone: h.phone.phone, verification: phoneVerificationIn(h.phone) },
    password: passwordIn(h.passwordType),
  };
}

/** What CreateUser and UpdateUser say of a machine user. */
export function machineIn<M extends { name?: string; description?: string; accessTokenType?: AccessTokenType }>(m: M) {
  return {
    name: m.name as M['name'],
    description: m.description,
    accessTokenType: accessTokenTypeIn(m.accessTokenType),
  };
}

export function userOut(u: UserView): MessageInitShape<typeof UserSchema> {
  return {
    userId: u.id,
    organizationId: u.orgId,
    state: STATES_OUT[u.state] ?? UserState.UNSPECIFIED,
    username: u.username,
    loginNames: u.loginNames,
    preferredLoginName: u.preferredLoginName,
    ...datesOut(u),
    type:
      u.type === 'HUMAN'
        ? {
            case: 'human',
            value: {
              profile: {
                givenName: u.givenName ?? '',
                familyName: u.familyName ?? '',
                nickName: u.nickName ?? '',
                displayName: u.displayName ?? '',
                preferredLanguage: u.preferredLanguage ?? '',
                gender: genderOut(u.gender),
              },
              email: { email: u.email ?? '', isVerified: u.emailVerified },
              phone: { phone: u.phone ?? '', isVerified: u.phoneVerified },
              passwordChanged: u.passwordChangedAt ? ts(u.passwordChangedAt) : undefined,
              passwordChangeRequired: u.passwordChangeRequired,
            },
          }
        : {
            case: 'machine',
            value: {
              name: u.machineName ?? '',
              description: u.description ?? '',
              hasSecret: !!u.secretHash,
              accessTokenType: accessTokenTypeOut(u.accessTokenType),
            },
          },
  };
}

/** A key or personal access token of a user as ListKeys and ListPersonalAccessTokens show it. */
export function secretOut(k: { id: string; userId: string; orgId: string; createdAt: Date; expiresAt: Date | null }) {
  return {
    id: k.id,
    userId: k.userId,
    organizationId: k.orgId,
    creationDate: ts(k.createdAt),
    expirationDate: k.expiresAt ? ts(k.expiresAt) : undefined,
  };
}

function text(field: string, v: { value: string; method: TextFilterMethod }) {
  const method = textMethodIn(v.method);
  if (!method) throw invalidArgument('Errors.Query.Invalid', `${field}.method is unknown`);
  return { value: v.value, method };
}

export function filterIn(f: UserFilterMsg | undefined): UserFilter {
  const x = f?.filter;
  switch (x?.case) {
    case 'usernameFilter':
      return { username: text('username_filter', x.value) };
    case 'loginNameFilter':
      return { loginName: x.value.loginName };
    case 'emailFilter':
      return { email: text('email_filter', x.value) };
    case 'displayNameFilter':
      return { displayName: text('display_name_filter', x.value) };
    case 'stateFilter': {
      const state = STATES_IN[x.value.state];
      if (!state) throw invalidArgument('Errors.Query.Invalid', 'state_filter.state is required');
      return state === 'ACTIVE' ? { or: [{ state }, { state: 'INITIAL' }] } : { state };
    }
    case 'typeFilter':
      if (x.value.type === UserType.HUMAN) return { type: 'HUMAN' };
      if (x.value.type === UserType.MACHINE) return { type: 'MACHINE' };
      throw invalidArgument('Errors.Query.Invalid', 'type_filter.type is required');
    case 'organizationIdFilter':
      return { orgId: x.value.organizationId };
    case 'inUserIdsFilter':
      return { userIds: x.value.userIds };
    case 'andFilter':
      return { and: x.value.filters.map(filterIn) };
    case 'orFilter':
      return { or: x.value.filters.map(filterIn) };
    case 'notFilter':
      return { not: filterIn(x.value.filter) };
    default:
      throw invalidArgument('Errors.Query.Invalid', 'filters: a filter is empty');
  }
}
