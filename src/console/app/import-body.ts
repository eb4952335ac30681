/**
 * The bulk import in the browser: what an uploaded file is, and a v1 import body (POST /admin/v1/import)
 * cut into requests of at most CHUNK users each, so the page can show progress and a refused request
 * stops early. Each request is a complete body the server understands on its own.
 */

export const CHUNK = 100;

type Item = Record<string, unknown>;
export interface ImportOrg extends Item {
  orgId?: string;
  humanUsers?: Item[];
  machineUsers?: Item[];
  userMetadata?: Item[];
}
export interface ImportBody {
  dataOrgs: { orgs: ImportOrg[] };
  timeout?: string;
}

export type ImportFile =
  | { kind: 'v1'; body: ImportBody; users: number }
  | { kind: 'keycloak'; realm?: string }
  | { kind: 'unknown'; reason: 'json' | 'shape' };

const isObject = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keycloak writes a realm (`realm` and `users` or `id`), a users file (`realm` and `users`) or a list of realms. */
function isKeycloak(v: unknown): boolean {
  const realm = (r: unknown) => isObject(r) && typeof r.realm === 'string';
  return realm(v) || (Array.isArray(v) && v.length > 0 && v.every(realm));
}

/** The file's kind from its content, never its name. */
export function detect(text: string): ImportFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unknown', reason: 'json' };
  }
  if (isObject(json) && isObject(json.dataOrgs) && Array.isArray(json.dataOrgs.orgs)) {
    const body = json as unknown as ImportBody;
    const users = body.dataOrgs.orgs.reduce(
      (n, o) => n + (o.humanUsers?.length ?? 0) + (o.machineUsers?.length ?? 0),
      0,
    );
    return { kind: 'v1', body, users };
  }
  if (isKeycloak(json)) {
    const first = Array.isArray(json) ? json[0] : json;
    return { kind: 'keycloak', realm: (first as { realm: string }).realm };
  }
  return { kind: 'unknown', reason: 'shape' };
}

/** Items that name users of the organization: sent after all its users are in. */
// Identity providers go last too: the CLI sends a converted realm's providers after its users, with the links.
const AFTER_USERS = [
  'userGrants',
  'orgMembers',
  'idps',
  'oidcIdps',
  'userLinks',
  'projectMembers',
  'projectGrantMembers',
];
const USERS = ['humanUsers', 'machineUsers', 'userMetadata'];

/**
 * The requests for a body, organization after organization as the body lists them: the first request
 * of an organization carries it with its projects, applications and domains; then its users CHUNK at a
 * time with their metadata; the last one also carries its identity providers and what refers to the users.
 */
export function chunksOf(body: ImportBody, size = CHUNK): { body: ImportBody; first: boolean }[] {
  const out: { body: ImportBody; first: boolean }[] = [];
  for (const org of body.dataOrgs.orgs) {
    const users: ['humanUsers' | 'machineUsers', Item][] = [
      ...(org.humanUsers ?? []).map((u) => ['humanUsers', u] as ['humanUsers', Item]),
      ...(org.machineUsers ?? []).map((u) => ['machineUsers', u] as ['machineUsers', Item]),
    ];
    const rest = Object.fromEntries(
      Object.entries(org).filter(([k]) => !USERS.includes(k) && !AFTER_USERS.includes(k)),
    );
    const after = Object.fromEntries(Object.entries(org).filter(([k]) => AFTER_USERS.includes(k)));
    const parts = Math.max(1, Math.ceil(users.length / size));
    for (let i = 0; i < parts; i++) {
      const slice = users.slice(i * size, (i + 1) * size);
      const ids = new Set(slice.map(([, u]) => u.userId));
      const part: ImportOrg = {
        // later requests name the organization again so that a new one is created by the first only
        ...(i === 0 ? rest : { orgId: org.orgId, org: org.org }),
        humanUsers: slice.filter(([k]) => k === 'humanUsers').map(([, u]) => u),
        machineUsers: slice.filter(([k]) => k === 'machineUsers').map(([, u]) => u),
        userMetadata: (org.userMetadata ?? []).filter((m) => ids.has(m.id)),
        ...(i === parts - 1 ? after : {}),
      };
      // metadata of users the body does not list goes with the first request (the server reports it)
      if (i === 0) {
        const listed = new Set(users.map(([, u]) => u.userId));
        part.userMetadata!.push(...(org.userMetadata ?? []).filter((m) => !listed.has(m.id)));
      }
      out.push({
        body: { dataOrgs: { orgs: [part] }, ...(body.timeout ? { timeout: body.timeout } : {}) },
        first: i === 0,
      });
    }
  }
  return out;
}

export interface ImportErrorRow {
  type: string;
  id: string;
  /** the part of the item the message's key names (`Errors.User.Email.Invalid` → Email), if any */
  field: string;
  message: string;
}

interface ImportResponse {
  success?: { orgs?: Record<string, unknown>[] };
  errors?: { type?: string; id?: string; message?: string }[];
}

/**
 * What one answer adds to the summary: every id the server lists as imported, and its error entries.
 * An `org` entry of a later request of the same organization is dropped: the first created it.
 */
export function tally(res: ImportResponse, firstOfOrg: boolean): { imported: number; errors: ImportErrorRow[] } {
  let imported = 0;
  for (const o of res.success?.orgs ?? []) for (const v of Object.values(o)) if (Array.isArray(v)) imported += v.length;
  const errors = (res.errors ?? [])
    .filter((e) => firstOfOrg || e.type !== 'org')
    .map((e) => {
      const message = e.message ?? '';
      const key = /Message=(\S+)/.exec(message)?.[1] ?? '';
      const parts = key.split('.');
      return { type: e.type ?? '', id: e.id ?? '', field: parts.length > 3 ? parts[2] : '', message };
    });
  return { imported, errors };
}
