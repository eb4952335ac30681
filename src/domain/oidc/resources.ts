import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { applications, projects } from '../../db/schema/index';
import { parseUrl } from '../validate/url';
import { invalidTarget } from './oauth-errors';

/**
 * Resource indicators (RFC 8707). A resource is named by one of two kinds of URI:
 * - `urn:portcullis:project:<projectId>`: a project (every application of it is in the audience);
 * - the resource URI registered on an API application (ApiConfiguration.resource_uri).
 * A token issued for resources carries exactly the requested URIs as its audience, nothing else.
 */
const PROJECT_RESOURCE_PREFIX = 'urn:portcullis:project:';

/** More would only make every token request a longer list of lookups. */
const MAX_RESOURCES = 10;
const MAX_RESOURCE_LENGTH = 2048;

export interface Resource {
  uri: string;
  projectId: string;
  /** the API application's client id; undefined for a project URN */
  clientId?: string;
}

/**
 * §2: each value an absolute URI without a fragment (invalid_target otherwise). Duplicates are
 * dropped; an empty list means the client asked for none.
 */
export function checkResourceSyntax(values: string[]): string[] {
  if (values.length > MAX_RESOURCES) throw invalidTarget(`at most ${MAX_RESOURCES} resource values are allowed`);
  for (const v of values) {
    if (v.length > MAX_RESOURCE_LENGTH || /\s/.test(v) || !parseUrl(v))
      throw invalidTarget('resource must be an absolute URI');
    if (v.includes('#')) throw invalidTarget('resource must not contain a fragment');
  }
  return [...new Set(values)];
}

/**
 * The resource behind each URI: an active project, or an active API application (of an active
 * project) whose registered resource URI it is. Any such resource of the instance may be asked for,
 * the same rule as the reserved project audience scope. Unknown ones are invalid_target.
 */
export async function resolveResources(db: Db, uris: string[]): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const uri of uris) {
    const found = uri.startsWith(PROJECT_RESOURCE_PREFIX) ? await projectResource(db, uri) : await apiResource(db, uri);
    if (!found) throw invalidTarget(`unknown resource: ${uri}`);
    out.push(found);
  }
  return out;
}

async function projectResource(db: Db, uri: string): Promise<Resource | undefined> {
  const projectId = uri.slice(PROJECT_RESOURCE_PREFIX.length);
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.state, 'ACTIVE')));
  return row ? { uri, projectId: row.id } : undefined;
}

async function apiResource(db: Db, uri: string): Promise<Resource | undefined> {
  const [row] = await db
    .select({ projectId: applications.projectId, clientId: applications.clientId })
    .from(applications)
    .innerJoin(projects, eq(projects.id, applications.projectId))
    .where(
      and(
        eq(applications.type, 'API'),
        eq(applications.state, 'ACTIVE'),
        eq(projects.state, 'ACTIVE'),
        sql`${applications.api}->>'resourceUri' = ${uri}`,
      ),
    );
  return row?.clientId ? { uri, projectId: row.projectId, clientId: row.clientId } : undefined;
}

/** The application (other than `exceptId`) that already holds a resource URI, if any. */
export async function resourceUriHolder(db: Db, uri: string, exceptId?: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: applications.id })
    .from(applications)
    .where(
      and(
        ne(applications.state, 'REMOVED'),
        sql`${applications.api}->>'resourceUri' = ${uri}`,
        exceptId ? ne(applications.id, exceptId) : undefined,
      ),
    );
  return row?.id;
}

/**
 * At the token endpoint (code exchange, refresh) `resource` may only narrow what the grant covers
 * (§2.2): each resource must be in the grant's audience, by its URI or, for a grant made without
 * `resource`, by the client id or project id of the default audience. Asking for more is invalid_target.
 */
export function narrowAudience(grantAudience: string[], requested: Resource[]): string[] {
  for (const r of requested) {
    const covered = grantAudience.includes(r.uri) || grantAudience.includes(r.clientId ?? r.projectId);
    if (!covered) throw invalidTarget(`resource ${r.uri} was not part of the original grant`);
  }
  return requested.map((r) => r.uri);
}

/** The audience values an application answers to beyond its client id and project id (introspection). */
export function resourceAudienceOf(caller: { projectId: string; resourceUri?: string }): string[] {
  const own = [`${PROJECT_RESOURCE_PREFIX}${caller.projectId}`];
  if (caller.resourceUri) own.push(caller.resourceUri);
  return own;
}
