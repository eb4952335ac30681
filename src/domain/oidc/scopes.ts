/**
 * Scopes the provider understands. Standard OIDC scopes plus the reserved ones (the word `service`
 * stands where a brand word would): unknown scopes are dropped from the grant, so a response's scope
 * may differ from the request.
 */
export const STANDARD_SCOPES = ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'];

export const RESERVED = {
  projectAudience: /^urn:service:iam:org:project:id:([^:]+):aud$/,
  role: /^urn:service:iam:org:project:role:(.+)$/,
  allProjectRoles: 'urn:service:iam:org:projects:roles',
  org: /^urn:service:iam:org:id:(.+)$/,
  metadata: 'urn:service:iam:user:metadata',
} as const;

/**
 * The v2/v1 API is a resource of its own: it accepts a user's access token only when the token's
 * audience names it, and a client gets that audience only by asking for this scope. Without the
 * rule, every application a user signs in to could act on the API with the user's full rights.
 */
export const API_AUDIENCE_SCOPE = 'urn:service:iam:org:project:id:api:aud';
/** The audience value that stands for the API (a URN, so no client id or project id can equal it). */
export const API_AUDIENCE = 'urn:service:iam:api';

export const CLAIMS = {
  roles: 'urn:service:iam:org:project:roles',
  projectRoles: (projectId: string) => `urn:service:iam:org:project:${projectId}:roles`,
  orgId: 'urn:service:iam:org:id',
  metadata: 'urn:service:iam:user:metadata',
} as const;

export function splitScopes(raw: string | undefined | null): string[] {
  return [...new Set((raw ?? '').split(' ').filter(Boolean))];
}

export function isKnownScope(s: string): boolean {
  return (
    STANDARD_SCOPES.includes(s) ||
    RESERVED.projectAudience.test(s) ||
    RESERVED.role.test(s) ||
    s === RESERVED.allProjectRoles ||
    RESERVED.org.test(s) ||
    s === RESERVED.metadata
  );
}

export function requestedOrgId(scopes: string[]): string | undefined {
  for (const s of scopes) {
    const m = RESERVED.org.exec(s);
    if (m) return m[1];
  }
  return undefined;
}

export function requestedRoleKeys(scopes: string[]): string[] {
  return scopes.map((s) => RESERVED.role.exec(s)?.[1]).filter((k): k is string => !!k);
}

export function audienceProjects(scopes: string[]): string[] {
  return scopes.map((s) => RESERVED.projectAudience.exec(s)?.[1]).filter((k): k is string => !!k);
}

/** Whether the scopes ask for a roles claim at all. */
export function wantsRoles(scopes: string[]): boolean {
  return scopes.includes(RESERVED.allProjectRoles) || requestedRoleKeys(scopes).length > 0;
}
