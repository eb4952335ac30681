import { and, count, eq, gt, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { applicationKeys, applications, orgs, projects } from '../../db/schema/index';
import { verifySecret } from '../../crypto/secrets';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import { type ListResult, type PageRequest, emptyList, listResult, ordered, page } from '../list/page';
import { listSelect } from '../list/query';
import { type TextMethod, textCondition } from '../list/text-filter';
import { type ComplianceProblem, complianceProblems } from './compliance';
import type { ApiAppConfig, AppState, AppType, OidcAppConfig, SamlAppConfig } from './model';

export interface ApplicationView {
  id: string;
  projectId: string;
  orgId: string;
  name: string;
  type: AppType;
  state: AppState;
  clientId: string | null;
  hasSecret: boolean;
  oidc: OidcAppConfig | null;
  saml: SamlAppConfig | null;
  api: ApiAppConfig | null;
  complianceProblems: ComplianceProblem[];
  createdAt: Date;
  changedAt: Date;
}

export type ApplicationFilter =
  | { projectId: string }
  | { orgId: string }
  | { name: string; method: TextMethod }
  | { type: AppType };

/** An application that still exists in a project and organization that still exist. */
const existing = and(ne(applications.state, 'REMOVED'), ne(projects.state, 'REMOVED'), ne(orgs.state, 'REMOVED'));

/** The application columns every read of an application selects. */
const applicationColumns = {
  id: applications.id,
  projectId: applications.projectId,
  orgId: applications.orgId,
  name: applications.name,
  type: applications.type,
  state: applications.state,
  clientId: applications.clientId,
  secretHash: applications.secretHash,
  oidc: applications.oidc,
  saml: applications.saml,
  api: applications.api,
  createdAt: applications.createdAt,
  changedAt: applications.changedAt,
};

type Row = { [K in keyof typeof applicationColumns]: (typeof applications.$inferSelect)[K] };

function toView(row: Row): ApplicationView {
  return {
    id: row.id,
    projectId: row.projectId,
    orgId: row.orgId,
    name: row.name,
    type: row.type as AppType,
    state: row.state as AppState,
    clientId: row.clientId,
    hasSecret: Boolean(row.secretHash),
    oidc: row.oidc,
    saml: row.saml,
    api: row.api,
    complianceProblems: row.type === 'OIDC' && row.oidc ? complianceProblems(row.oidc) : [],
    createdAt: row.createdAt,
    changedAt: row.changedAt,
  };
}

/** Applications with the states of their project and organization, which decide whether they still exist. */
export function applicationsWithOwners(db: Db) {
  return db
    .select({ ...applicationColumns, projectState: projects.state, orgState: orgs.state })
    .from(applications)
    .innerJoin(projects, eq(projects.id, applications.projectId))
    .innerJoin(orgs, eq(orgs.id, applications.orgId));
}

function visibleApps(db: Db) {
  return db
    .select(applicationColumns)
    .from(applications)
    .innerJoin(projects, eq(projects.id, applications.projectId))
    .innerJoin(orgs, eq(orgs.id, applications.orgId));
}

/** The application if the caller may read it; NOT_FOUND otherwise, so foreign ones stay unknown. */
export async function getApplication(ctx: Ctx, applicationId: string): Promise<ApplicationView> {
  const [row] = await visibleApps(ctx.db).where(and(eq(applications.id, applicationId), existing));
  if (!row || !ctx.principal.canProject('project.app.read', row.projectId, row.orgId)) throw applicationNotFound();
  return toView(row);
}

export const applicationNotFound = () => notFound('Errors.Application.NotFound', 'application not found');

/** The permission scope as a SQL condition: orgs and projects on which `project.app.read` is held. */
function readScope(ctx: Ctx): SQL | undefined {
  const orgScope = ctx.principal.orgScope('project.app.read');
  if (orgScope === 'all') return undefined;
  const projectScope = ctx.principal.projectScope('project.app.read');
  const parts: SQL[] = [];
  if (orgScope.length) parts.push(inArray(applications.orgId, orgScope));
  if (projectScope.length) parts.push(inArray(applications.projectId, projectScope));
  return parts.length ? or(...parts) : sql`false`;
}

function filterCondition(f: ApplicationFilter): SQL | undefined {
  if ('projectId' in f) return eq(applications.projectId, f.projectId);
  if ('orgId' in f) return eq(applications.orgId, f.orgId);
  if ('type' in f) return eq(applications.type, f.type);
  return textCondition(applications.name, f.name, f.method);
}

/** Applications the caller may read, filtered in SQL, ordered by creation (id). */
export async function listApplications(
  ctx: Ctx,
  query: { page?: PageRequest; filters?: ApplicationFilter[] },
): Promise<ListResult<ApplicationView>> {
  const p = page(query.page);
  const where = and(existing, readScope(ctx), ...(query.filters ?? []).map(filterCondition));
  const found = await listSelect(
    ctx.db,
    p,
    () => visibleApps(ctx.db).where(where).$dynamic(),
    applications.createdAt,
    applications.id,
  );
  return { ...found, items: found.items.map(toView) };
}

export interface ApplicationKeyView {
  id: string;
  applicationId: string;
  clientId: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/** Keys of an application the caller may read, newest first unless `asc` is set. */
export async function listKeysOfApplication(
  ctx: Ctx,
  applicationId: string,
  pageRequest?: PageRequest,
): Promise<ListResult<ApplicationKeyView>> {
  const p = page(pageRequest);
  const app = await getApplication(ctx, applicationId);
  if (!app.clientId) return emptyList(p);
  const where = and(eq(applicationKeys.clientId, app.clientId), eq(applicationKeys.applicationId, app.id));
  const rows = ctx.db
    .select({
      id: applicationKeys.id,
      applicationId: applicationKeys.applicationId,
      clientId: applicationKeys.clientId,
      createdAt: applicationKeys.createdAt,
      expiresAt: applicationKeys.expiresAt,
    })
    .from(applicationKeys)
    .where(where)
    .orderBy(...ordered(p, applicationKeys.createdAt, applicationKeys.id))
    .limit(p.limit)
    .offset(p.offset);
  return listResult(p, rows, ctx.db.select({ n: count() }).from(applicationKeys).where(where));
}

/** What the OIDC layer needs to authenticate a client and check its requests. */
export interface OidcClient {
  applicationId: string;
  projectId: string;
  orgId: string;
  clientId: string;
  /** keyed hash (crypto/secrets.ts); null when the method uses no secret */
  secretHash: string | null;
  /** INACTIVE when the application, its project or its organization is deactivated */
  state: 'ACTIVE' | 'INACTIVE';
  type: 'OIDC' | 'API';
  oidc: OidcAppConfig | null;
  api: ApiAppConfig | null;
}

/**
 * Looks up a client by its client id, for the OIDC endpoints. Removed applications (and those of
 * removed projects or organizations) are undefined; deactivated ones come back with state INACTIVE
 * so the caller can answer invalid_client / unauthorized_client.
 */
export async function findOidcClientByClientId(db: Db, clientId: string): Promise<OidcClient | undefined> {
  const [row] = await applicationsWithOwners(db).where(and(eq(applications.clientId, clientId), existing));
  if (!row || (row.type !== 'OIDC' && row.type !== 'API')) return undefined;
  const active = row.state === 'ACTIVE' && row.projectState === 'ACTIVE' && row.orgState === 'ACTIVE';
  return {
    applicationId: row.id,
    projectId: row.projectId,
    orgId: row.orgId,
    clientId,
    secretHash: row.secretHash,
    state: active ? 'ACTIVE' : 'INACTIVE',
    type: row.type,
    oidc: row.oidc,
    api: row.api,
  };
}

/** Checks a presented client secret against the stored keyed hash (constant time). */
export function verifyClientSecret(client: Pick<OidcClient, 'secretHash'>, secret: string): boolean {
  return verifySecret(client.secretHash, secret);
}

/** The unexpired public keys (SPKI PEM) of a private_key_jwt client; `keyId` is the JWT `kid`. */
export async function listApplicationKeys(
  db: Db,
  clientId: string,
): Promise<{ keyId: string; applicationId: string; publicKey: string; expiresAt: Date | null }[]> {
  return db
    .select({
      keyId: applicationKeys.id,
      applicationId: applicationKeys.applicationId,
      publicKey: applicationKeys.publicKey,
      expiresAt: applicationKeys.expiresAt,
    })
    .from(applicationKeys)
    .where(
      and(
        eq(applicationKeys.clientId, clientId),
        or(isNull(applicationKeys.expiresAt), gt(applicationKeys.expiresAt, new Date())),
      ),
    );
}
