import { parseDuration } from '../../config';
import { invalidArgument } from '../../domain/errors';
import { checkId } from '../../domain/user/validate';
import type { ImportHuman, ImportMachine, ImportMetadata, ImportOrg } from '../../domain/import/model';
import { type Obj, bool, enumValue, id, obj, objects, str } from '../shape';

/** Sections of the import body this version does not import; each item is reported in errors[]. */
const UNSUPPORTED: { key: string; type: string; id: (o: Obj) => unknown }[] = [
  { key: 'projects', type: 'project', id: (o) => o.projectId },
  { key: 'projectRoles', type: 'project_role', id: (o) => (o.projectId ? `${o.projectId}_${o.roleKey}` : o.roleKey) },
  { key: 'oidcApps', type: 'oidc_app', id: (o) => o.appId },
  { key: 'apiApps', type: 'api_app', id: (o) => o.appId },
  { key: 'userGrants', type: 'user_grant', id: (o) => `${o.userId}_${o.projectId}` },
  { key: 'domains', type: 'domain', id: (o) => o.domainName },
  { key: 'orgMembers', type: 'org_member', id: (o) => o.userId },
  { key: 'projectMembers', type: 'project_member', id: (o) => `${o.projectId}_${o.userId}` },
  { key: 'projectGrants', type: 'project_grant', id: (o) => o.grantId },
  { key: 'actions', type: 'action', id: (o) => o.actionId },
];

export interface ImportRequest {
  orgs: ImportOrg[];
  timeoutMs?: number;
}

/** The import body (protobuf JSON, keys already lowerCamelCase) → the domain's import input. */
export function toImportRequest(body: Obj): ImportRequest {
  const dataOrgs = obj(body, 'dataOrgs', '');
  if (!dataOrgs) throw invalidArgument('Errors.Import.Invalid', 'dataOrgs is required: the body must be {"dataOrgs": {"orgs": [...]}}');
  const orgs = objects(dataOrgs, 'orgs', 'dataOrgs').map((o, i) => toOrg(o, `dataOrgs.orgs[${i}]`));
  const seen = new Set<string>();
  for (const [i, o] of orgs.entries()) {
    if (seen.has(o.orgId)) throw invalidArgument('Errors.Import.Invalid', `dataOrgs.orgs[${i}].orgId ${o.orgId} appears twice`);
    seen.add(o.orgId);
  }
  const timeout = str(body, 'timeout', '');
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    try {
      timeoutMs = parseDuration('timeout', timeout);
    } catch {
      throw invalidArgument('Errors.Import.Invalid', `timeout must be a duration such as 5m0s or 300s; got "${timeout}"`);
    }
  }
  return { orgs, timeoutMs: timeoutMs || undefined };
}

function toOrg(o: Obj, path: string): ImportOrg {
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
    unsupported,
  };
}

function toHuman(h: Obj, path: string): ImportHuman {
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

function toMachine(m: Obj, path: string): ImportMachine {
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
function toMetadata(m: Obj, path: string): ImportMetadata {
  const userId = id(m, 'id', path) ?? id(m, 'userId', path);
  const key = str(m, 'key', path);
  if (!userId || !key) throw invalidArgument('Errors.Import.Invalid', `${path} needs id and key`);
  const raw = str(m, 'value', path) ?? '';
  return { userId, key, value: Buffer.from(raw, 'base64').toString('base64') };
}
