import { DomainError, invalidArgument } from '../../domain/errors';
import { checkId } from '../../domain/user/validate';
import type {
  ImportApp,
  ImportDomain,
  ImportHuman,
  ImportMachine,
  ImportMetadata,
  ImportOrg,
  ImportOrgMember,
  ImportProject,
  ImportProjectRole,
  ImportUserGrant,
} from '../../domain/import/model';
import { toApi, toOidc } from '../management/apps';
import { toIdp, toOidcIdp, toUserLink } from './idps';
import { type Obj, bool, enumValue, id, obj, objects, str, strings } from '../shape';

/** Sections of the import body this version does not import; each item is reported in errors[]. */
const UNSUPPORTED: { key: string; type: string; id: (o: Obj) => unknown }[] = [
  { key: 'projectMembers', type: 'project_member', id: (o) => `${o.projectId}_${o.userId}` },
  { key: 'projectGrants', type: 'project_grant', id: (o) => o.grantId },
  { key: 'actions', type: 'action', id: (o) => o.actionId },
];

export function toOrg(o: Obj, path: string): ImportOrg {
  const given = id(o, 'orgId', path);
  if (!given) throw invalidArgument('Errors.Import.OrgIdMissing', `${path}.orgId is required`);
  const orgId = checkId(`${path}.orgId`, given);
  const org = obj(o, 'org', path);
  const unsupported: ImportOrg['unsupported'] = [];
  for (const section of UNSUPPORTED) {
    objects(o, section.key, path).forEach((item, i) => {
      unsupported.push({ type: section.type, id: String(section.id(item) ?? `${section.key}[${i}]`) });
    });
  }
  return {
    orgId,
    name: org ? str(org, 'name', `${path}.org`) : undefined,
    humanUsers: objects(o, 'humanUsers', path).map((h, i) => toHuman(h, `${path}.humanUsers[${i}]`)),
    machineUsers: objects(o, 'machineUsers', path).map((m, i) => toMachine(m, `${path}.machineUsers[${i}]`)),
    userMetadata: objects(o, 'userMetadata', path).map((m, i) => toMetadata(m, `${path}.userMetadata[${i}]`)),
    projects: objects(o, 'projects', path).map((p, i) => toProject(p, `${path}.projects[${i}]`)),
    projectRoles: objects(o, 'projectRoles', path).map((r, i) => toProjectRole(r, `${path}.projectRoles[${i}]`)),
    apps: [
      ...objects(o, 'oidcApps', path).map((a, i) => toApp(a, `${path}.oidcApps[${i}]`, 'oidc_app')),
      ...objects(o, 'apiApps', path).map((a, i) => toApp(a, `${path}.apiApps[${i}]`, 'api_app')),
    ],
    userGrants: objects(o, 'userGrants', path).map((g, i) => toUserGrant(g, `${path}.userGrants[${i}]`)),
    domains: objects(o, 'domains', path).map((d, i) => toDomain(d, `${path}.domains[${i}]`)),
    orgMembers: objects(o, 'orgMembers', path).map((m, i) => toOrgMember(m, `${path}.orgMembers[${i}]`)),
    idps: [
      ...objects(o, 'idps', path).map((d, i) => toIdp(d, `${path}.idps[${i}]`)),
      ...objects(o, 'oidcIdps', path).map((d, i) => toOidcIdp(d, `${path}.oidcIdps[${i}]`)),
    ],
    userLinks: objects(o, 'userLinks', path).map((l, i) => toUserLink(l, `${path}.userLinks[${i}]`)),
    unsupported,
  };
}

export function toHuman(h: Obj, path: string): ImportHuman {
  const user = obj(h, 'user', path) ?? {};
  const up = `${path}.user`;
  const profile = obj(user, 'profile', up) ?? {};
  const email = obj(user, 'email', up) ?? {};
  const phone = obj(user, 'phone', up) ?? {};
  const hashed = obj(user, 'hashedPassword', up);
  const state = enumValue(h, 'state', path, 'USER_STATE_');
  return {
    userId: id(h, 'userId', path),
    username: str(user, 'userName', up) ?? '',
    firstName: str(profile, 'firstName', `${up}.profile`) ?? '',
    lastName: str(profile, 'lastName', `${up}.profile`) ?? '',
    nickName: str(profile, 'nickName', `${up}.profile`) || undefined,
    displayName: str(profile, 'displayName', `${up}.profile`) || undefined,
    preferredLanguage: str(profile, 'preferredLanguage', `${up}.profile`) || undefined,
    gender: enumValue(profile, 'gender', `${up}.profile`, 'GENDER_'),
    email: str(email, 'email', `${up}.email`)?.trim() ?? '',
    emailVerified: bool(email, 'isEmailVerified', `${up}.email`) ?? false,
    phone: str(phone, 'phone', `${up}.phone`) || undefined,
    phoneVerified: bool(phone, 'isPhoneVerified', `${up}.phone`) ?? false,
    password: str(user, 'password', up) ?? undefined,
    passwordHash: hashed ? (str(hashed, 'value', `${up}.hashedPassword`) ?? '') : undefined,
    passwordChangeRequired: bool(user, 'passwordChangeRequired', up) ?? false,
    otpSecret: str(user, 'otpCode', up) || undefined,
    state: state === 'ACTIVE' || state === 'INACTIVE' || state === 'LOCKED' ? state : undefined,
  };
}

export function toMachine(m: Obj, path: string): ImportMachine {
  const user = obj(m, 'user', path) ?? {};
  const up = `${path}.user`;
  return {
    userId: id(m, 'userId', path),
    username: str(user, 'userName', up) ?? '',
    name: str(user, 'name', up) ?? '',
    description: str(user, 'description', up) || undefined,
    accessTokenType: enumValue(user, 'accessTokenType', up, 'ACCESS_TOKEN_TYPE_') === 'JWT' ? 'JWT' : 'BEARER',
  };
}

/** Metadata values are protobuf `bytes`: base64 in JSON, stored base64 like every metadata value. */
export function toMetadata(m: Obj, path: string): ImportMetadata {
  const userId = id(m, 'id', path) ?? id(m, 'userId', path);
  const key = str(m, 'key', path);
  if (!userId || !key) throw invalidArgument('Errors.Import.Invalid', `${path} needs id and key`);
  const raw = str(m, 'value', path) ?? '';
  return { userId, key, value: Buffer.from(raw, 'base64').toString('base64') };
}

/** An id the item cannot do without: a body without it is not a migration tool's output. */
function requiredId(o: Obj, key: string, path: string): string {
  const v = id(o, key, path);
  if (!v) throw invalidArgument('Errors.Import.Invalid', `${path}.${key} is required`);
  return v;
}

function toProject(p: Obj, path: string): ImportProject {
  const project = obj(p, 'project', path) ?? {};
  const pp = `${path}.project`;
  return {
    projectId: requiredId(p, 'projectId', path),
    name: str(project, 'name', pp) ?? '',
    projectRoleAssertion: bool(project, 'projectRoleAssertion', pp),
    authorizationRequired: bool(project, 'projectRoleCheck', pp),
    projectAccessRequired: bool(project, 'hasProjectCheck', pp),
  };
}

function toProjectRole(r: Obj, path: string): ImportProjectRole {
  return {
    projectId: requiredId(r, 'projectId', path),
    key: requiredId(r, 'roleKey', path),
    displayName: str(r, 'displayName', path) ?? '',
    group: str(r, 'group', path) || undefined,
  };
}

/** The app's configuration in the v1 management shape; one the shim rejects becomes the item's error. */
function toApp(a: Obj, path: string, kind: ImportApp['kind']): ImportApp {
  const app = obj(a, 'app', path) ?? {};
  let config: ImportApp['config'];
  try {
    config = kind === 'oidc_app' ? toOidc(app) : toApi(app);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    config = { invalid: err.key };
  }
  return {
    kind,
    appId: requiredId(a, 'appId', path),
    projectId: requiredId(app, 'projectId', `${path}.app`),
    name: str(app, 'name', `${path}.app`) ?? '',
    config,
  };
}

function toUserGrant(g: Obj, path: string): ImportUserGrant {
  return {
    userId: requiredId(g, 'userId', path),
    projectId: requiredId(g, 'projectId', path),
    roleKeys: strings(g, 'roleKeys', path),
  };
}

function toDomain(d: Obj, path: string): ImportDomain {
  return {
    domain: requiredId(d, 'domainName', path),
    verified: bool(d, 'isVerified', path) ?? false,
    primary: bool(d, 'isPrimary', path) ?? false,
  };
}

function toOrgMember(m: Obj, path: string): ImportOrgMember {
  return { userId: requiredId(m, 'userId', path), roles: strings(m, 'roles', path) };
}
