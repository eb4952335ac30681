import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { defineCache, invalidateAfterCommit } from '../cache';
import type { Source } from '../context';
import type { UnitOfWork } from '../execute';
import { type OidcAppConfig, applicationKeys, applications, projects } from '../../db/schema/index';

export interface OidcClient {
  applicationId: string;
  clientId: string;
  projectId: string;
  orgId: string;
  name: string;
  /** OIDC | API */
  type: string;
  active: boolean;
  secretHash: string | null;
  /** BASIC | POST | NONE | PRIVATE_KEY_JWT */
  authMethod: string;
  oidc?: OidcAppConfig;
  project: { roleAssertion: boolean; authorizationRequired: boolean; projectAccessRequired: boolean };
  /** default audience: every client id of the project plus the project id */
  audience: string[];
  /** an API application's registered resource URI (RFC 8707) */
  resourceUri?: string;
  keys: { id: string; publicKey: string; expiresAt: Date | null }[];
}

const CACHE_NAME = 'oidc-client';
// Two seconds at most even without an eviction: application commands that do not (yet) call
// invalidateOidcClient still take effect on every replica within that time.
const cache = defineCache<OidcClient | undefined>(CACHE_NAME, { maxAgeMs: 2000 });

/**
 * The client (OIDC or API application) behind a client_id, with what token issuance needs. Read on
 * every token, introspection and userinfo request, so each server caches it.
 */
export function findClient(src: Source, clientId: string): Promise<OidcClient | undefined> {
  return src.runtime.get(cache).get(clientId, () => loadClient(src.db, clientId));
}

/** For application commands: evict the client in every replica once the transaction commits. */
export function invalidateOidcClient(work: UnitOfWork, clientId: string): Promise<void> {
  return invalidateAfterCommit(work, CACHE_NAME, clientId);
}

async function loadClient(db: Db, clientId: string): Promise<OidcClient | undefined> {
  const [row] = await db
    .select({ app: applications, project: projects })
    .from(applications)
    .innerJoin(projects, eq(projects.id, applications.projectId))
    .where(and(eq(applications.clientId, clientId), ne(applications.state, 'REMOVED')));
  if (!row || (row.app.type !== 'OIDC' && row.app.type !== 'API')) return undefined;
  const { app, project } = row;
  const [siblings, keys] = await Promise.all([
    projectClientIds(db, app.projectId),
    db
      .select({ id: applicationKeys.id, publicKey: applicationKeys.publicKey, expiresAt: applicationKeys.expiresAt })
      .from(applicationKeys)
      .where(eq(applicationKeys.applicationId, app.id)),
  ]);
  const authMethod = app.type === 'OIDC' ? (app.oidc?.authMethodType ?? 'BASIC') : (app.api?.authMethodType ?? 'BASIC');
  return {
    applicationId: app.id,
    clientId,
    projectId: app.projectId,
    orgId: app.orgId,
    name: app.name,
    type: app.type,
    active: app.state === 'ACTIVE' && project.state === 'ACTIVE',
    secretHash: app.secretHash,
    authMethod,
    oidc: app.oidc ?? undefined,
    project: {
      roleAssertion: project.projectRoleAssertion,
      authorizationRequired: project.authorizationRequired,
      projectAccessRequired: project.projectAccessRequired,
    },
    audience: [...siblings, app.projectId],
    resourceUri: app.api?.resourceUri || undefined,
    keys,
  };
}

/** Client ids of every live application of a project (its default token audience). */
export async function projectClientIds(db: Db, projectId: string): Promise<string[]> {
  const rows = await db
    .select({ clientId: applications.clientId })
    .from(applications)
    .where(and(eq(applications.projectId, projectId), ne(applications.state, 'REMOVED')));
  return rows.map((r) => r.clientId).filter((c): c is string => !!c);
}

/** Whether a project exists (for the reserved audience scope). */
export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, projectId), ne(projects.state, 'REMOVED')));
  return !!row;
}
