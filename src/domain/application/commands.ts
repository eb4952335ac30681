import { invalidateOidcClient } from '../oidc/clients';
import { and, eq, ne, sql } from 'drizzle-orm';
import { resourceUriHolder } from '../oidc/resources';
import { applicationKeys, applications, orgs, projects } from '../../db/schema/index';
import { hashSecret } from '../../crypto/secrets';
import { randomToken } from '../../crypto/random';
import type { Ctx } from '../context';
import { alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied } from '../errors';
import type { EventPayloads, EventType } from '../events/registry';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { refuseConsoleApplication } from '../instance/system-resources';
import { checkApiAccessChange } from './api-access';
import { type ComplianceProblem, complianceProblems } from './compliance';
import { newClientId } from './client-id';
import {
  API_DEFAULTS,
  type ApiAppConfig,
  type AppConfigInput,
  type AppType,
  OIDC_DEFAULTS,
  type OidcAppConfig,
  type SamlAppConfig,
  usesSecret,
  withOidcDefaults,
} from './model';
import { applicationNotFound, applicationsWithOwners } from './queries';
import {
  checkApiConfig,
  checkApplicationId,
  checkName,
  checkOidcConfig,
  checkRequiredId,
  checkSamlAppConfig,
} from './validate';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const applicationUniqueConstraints: UniqueConstraintErrors = {
  applications_pkey: () =>
    alreadyExists('Errors.Application.AlreadyExists', 'an application with this id already exists'),
  applications_client_id_uq: () =>
    alreadyExists('Errors.Application.AlreadyExists', 'an application with this client id already exists'),
};

// Application events live on the project aggregate (`project.application.*`), owned by the
// project's organization: commands load the project's sequence first, so concurrent changes to the
// project and its applications are detected.

/** A client secret: 256 random bits, shown once, stored as a keyed hash. */
function newClientSecret(): string {
  return randomToken(32);
}

export interface CreateApplicationInput {
  projectId: string;
  applicationId?: string;
  name: string;
  config: AppConfigInput;
}

export interface CreatedApplication {
  id: string;
  type: AppType;
  createdAt: Date;
  clientId?: string;
  clientSecret?: string;
  complianceProblems: ComplianceProblem[];
}

export async function createApplication(ctx: Ctx, input: CreateApplicationInput): Promise<CreatedApplication> {
  checkCreateApplication(input);
  return execute(ctx, (work) => createApplicationIn(work, input));
}

function checkCreateApplication(input: CreateApplicationInput) {
  checkRequiredId(input.projectId, 'project_id');
  if (input.applicationId) checkApplicationId(input.applicationId);
  return { name: checkName(input.name), config: completeConfig(input.config) };
}

/** CreateApplication inside a running command (the bulk import creates many in one transaction). */
export async function createApplicationIn(
  work: UnitOfWork,
  input: CreateApplicationInput,
): Promise<CreatedApplication> {
  const { name, config } = checkCreateApplication(input);
  await work.load('project', input.projectId);
  const project = await writableProject(work, input.projectId);
  if (config.type === 'OIDC') checkApiAccessChange(work.ctx.principal, null, config.oidc);
  const id = input.applicationId || newId();
  if (config.type === 'API') await checkResourceUriFree(work, config.api);
  const clientId = config.type === 'SAML' ? null : newClientId(id, project.name);
  const clientSecret = usesSecret(config.type, configOf(config)) ? newClientSecret() : undefined;
  const [row] = await work.tx
    .insert(applications)
    .values({
      id,
      projectId: project.id,
      orgId: project.orgId,
      name,
      type: config.type,
      clientId,
      secretHash: clientSecret ? hashSecret(clientSecret) : null,
      oidc: config.type === 'OIDC' ? config.oidc : null,
      saml: config.type === 'SAML' ? config.saml : null,
      api: config.type === 'API' ? config.api : null,
    })
    .returning({ createdAt: applications.createdAt });
  const push = eventsFor(work, project.id, project.orgId);
  push('project.application.added', { appId: id, name, type: config.type });
  push(`project.application.config.${lower(config.type)}.added`, {
    appId: id,
    clientId,
    hasSecret: Boolean(clientSecret),
    ...configOf(config),
  });
  return {
    id,
    type: config.type,
    createdAt: row.createdAt,
    clientId: clientId ?? undefined,
    clientSecret,
    complianceProblems: config.type === 'OIDC' ? complianceProblems(config.oidc) : [],
  };
}

type CompleteConfig =
  | { type: 'OIDC'; oidc: OidcAppConfig }
  | { type: 'SAML'; saml: SamlAppConfig }
  | { type: 'API'; api: ApiAppConfig };

function completeConfig(input: AppConfigInput): CompleteConfig {
  if (input.type === 'OIDC') {
    const oidc = withOidcDefaults(OIDC_DEFAULTS, input.oidc);
    checkOidcConfig(oidc);
    return { type: 'OIDC', oidc };
  }
  if (input.type === 'API') {
    const api = withoutEmptyResource({ ...API_DEFAULTS, ...definedOnly(input.api) });
    checkApiConfig(api);
    return { type: 'API', api };
  }
  checkSamlAppConfig(input.saml);
  return { type: 'SAML', saml: input.saml };
}

function configOf(c: CompleteConfig): Record<string, unknown> & { authMethodType?: string } {
  return c.type === 'OIDC' ? { ...c.oidc } : c.type === 'API' ? { ...c.api } : { ...c.saml };
}

/** An empty resource URI (the update's way to remove it) is no resource URI. */
function withoutEmptyResource(api: ApiAppConfig): ApiAppConfig {
  if (api.resourceUri) return api;
  const { resourceUri: _, ...rest } = api;
  return rest;
}

/**
 * A resource URI names one API of the instance: checked under a transaction-wide advisory lock, so
 * two concurrent commands cannot both take the same URI.
 */
async function checkResourceUriFree(work: UnitOfWork, api: ApiAppConfig | null, applicationId?: string) {
  if (!api?.resourceUri) return;
  await work.tx.execute(sql`select pg_advisory_xact_lock(7301017)`);
  if (await resourceUriHolder(work.tx, api.resourceUri, applicationId)) {
    throw alreadyExists(
      'Errors.Application.ResourceUri.Taken',
      `api.resource_uri "${api.resourceUri}" is already registered by another application`,
    );
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The project, if it exists and the caller may add applications to it. */
async function writableProject(work: UnitOfWork, projectId: string) {
  const [project] = await work.tx
    .select({ id: projects.id, orgId: projects.orgId, name: projects.name })
    .from(projects)
    .innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(and(eq(projects.id, projectId), ne(projects.state, 'REMOVED'), ne(orgs.state, 'REMOVED')));
  const p = work.ctx.principal;
  if (
    !project ||
    !(
      p.canProject('project.app.read', project.id, project.orgId) ||
      p.canProject('project.read', project.id, project.orgId)
    )
  ) {
    throw notFound('Errors.Project.NotFound', 'project not found');
  }
  if (!p.canProject('project.app.write', project.id, project.orgId))
    throw permissionDenied('needs project.app.write on the project');
  return project;
}

/** The application type as it reads in event types (`project.application.config.oidc.added`). */
const lower = (type: AppType) => type.toLowerCase() as Lowercase<AppType>;

function eventsFor(work: UnitOfWork, projectId: string, orgId: string) {
  return <T extends EventType>(type: T, payload: EventPayloads[T]) =>
    work.push({ aggregateType: 'project', aggregateId: projectId, type, payload, resourceOwner: orgId });
}

/**
 * Loads an application for a change: NOT_FOUND unless it exists and the caller may read it,
 * PERMISSION_DENIED unless the caller may also change it. `removed` lets DeleteApplication find an
 * already removed one.
 */
async function writableApplication(work: UnitOfWork, applicationId: string, opts: { removed?: boolean } = {}) {
  checkRequiredId(applicationId, 'application_id');
  const [ref] = await work.tx
    .select({ projectId: applications.projectId })
    .from(applications)
    .where(eq(applications.id, applicationId));
  if (!ref) throw applicationNotFound();
  await work.load('project', ref.projectId);
  const [row] = await applicationsWithOwners(work.tx).where(eq(applications.id, applicationId));
  const gone =
    !row || row.projectState === 'REMOVED' || row.orgState === 'REMOVED' || (row.state === 'REMOVED' && !opts.removed);
  const p = work.ctx.principal;
  if (gone || !p.canProject('project.app.read', row.projectId, row.orgId)) throw applicationNotFound();
  if (!p.canProject('project.app.write', row.projectId, row.orgId))
    throw permissionDenied('needs project.app.write on the project');
  // Every change of an application reaches the token endpoints of all replicas on commit. Explicit: the
  // application events name the app, not the client id the cache is keyed by.
  if (row.clientId) await invalidateOidcClient(work, row.clientId);
  return row;
}

export interface UpdateApplicationInput {
  applicationId: string;
  name?: string;
  /** fields present in the partial replace the stored ones (lists included) */
  config?: AppConfigInput;
  /** check only: validate and report the compliance problems, but save nothing */
  validateOnly?: boolean;
}

export interface UpdatedApplication {
  changedAt: Date;
  clientSecret?: string;
  complianceProblems: ComplianceProblem[];
}

export async function updateApplication(ctx: Ctx, input: UpdateApplicationInput): Promise<UpdatedApplication> {
  if (input.name !== undefined) checkName(input.name);
  return execute(ctx, (work) => updateApplicationIn(work, input));
}

/** UpdateApplication inside a running command (the RFC 7592 client update also replaces keys in it). */
export async function updateApplicationIn(
  work: UnitOfWork,
  input: UpdateApplicationInput,
): Promise<UpdatedApplication> {
  const name = input.name === undefined ? undefined : checkName(input.name);
  const app = await writableApplication(work, input.applicationId);
  const type = app.type as AppType;
  if (input.config && input.config.type !== type) {
    throw invalidArgument(
      'Errors.Application.TypeMismatch',
      `${input.config.type.toLowerCase()} does not match the application's type ${type}`,
    );
  }
  if (input.config?.type === 'OIDC') {
    const next = mergeConfig(app, input.config);
    if (next.type === 'OIDC') checkApiAccessChange(work.ctx.principal, app.oidc, next.oidc);
  }
  if (input.validateOnly) return checkUpdate(work, app, input.config);
  const push = eventsFor(work, app.projectId, app.orgId);
  const set: Partial<typeof applications.$inferInsert> = {};
  let clientSecret: string | undefined;

  if (name !== undefined && name !== app.name) {
    set.name = name;
    push('project.application.changed', { appId: app.id, name });
  }
  if (input.config) {
    const before = type === 'OIDC' ? app.oidc : type === 'API' ? app.api : app.saml;
    const next = mergeConfig(app, input.config);
    const after = configOf(next);
    // keys of both sides: an optional field that was removed (api.resource_uri) is a change too
    const keys = new Set([...Object.keys(after), ...Object.keys(before ?? {})]);
    const changed = Object.fromEntries(
      [...keys]
        .map((k) => [k, (after as any)[k] ?? null] as const)
        .filter(([k, v]) => JSON.stringify(v) !== JSON.stringify((before as any)?.[k] ?? null)),
    );
    if (Object.keys(changed).length > 0) {
      if (next.type === 'OIDC') set.oidc = next.oidc;
      if (next.type === 'API') {
        if (next.api.resourceUri !== app.api?.resourceUri) await checkResourceUriFree(work, next.api, app.id);
        set.api = next.api;
      }
      if (next.type === 'SAML') set.saml = next.saml;
      push(`project.application.config.${lower(type)}.changed`, { appId: app.id, ...changed });
      // Moving to a secret-based method needs a secret; moving away drops the old one.
      const needsSecret = usesSecret(type, after);
      if (needsSecret && !app.secretHash) {
        clientSecret = newClientSecret();
        set.secretHash = hashSecret(clientSecret);
        push('project.application.secret.changed', { appId: app.id });
      } else if (!needsSecret && app.secretHash) {
        set.secretHash = null;
      }
    }
  }
  let changedAt = app.changedAt;
  if (Object.keys(set).length > 0) {
    const [row] = await work.tx
      .update(applications)
      .set({ ...set, changedAt: new Date() })
      .where(eq(applications.id, app.id))
      .returning({ changedAt: applications.changedAt });
    changedAt = row.changedAt;
  }
  const oidc = set.oidc ?? app.oidc;
  return { changedAt, clientSecret, complianceProblems: type === 'OIDC' && oidc ? complianceProblems(oidc) : [] };
}

/**
 * A validate-only update: the same checks as the update (the writable lookup above, the merged
 * configuration's validation, a free resource URI) and the same compliance rules, with nothing written.
 */
async function checkUpdate(
  work: UnitOfWork,
  app: Awaited<ReturnType<typeof writableApplication>>,
  change: AppConfigInput | undefined,
): Promise<UpdatedApplication> {
  const next = change ? mergeConfig(app, change) : undefined;
  if (next?.type === 'API' && next.api.resourceUri !== app.api?.resourceUri) {
    await checkResourceUriFree(work, next.api, app.id);
  }
  const oidc = next?.type === 'OIDC' ? next.oidc : app.oidc;
  return { changedAt: app.changedAt, complianceProblems: app.type === 'OIDC' && oidc ? complianceProblems(oidc) : [] };
}

function mergeConfig(
  app: { type: string; oidc: OidcAppConfig | null; api: ApiAppConfig | null; saml: SamlAppConfig | null },
  change: AppConfigInput,
): CompleteConfig {
  if (change.type === 'OIDC') {
    const oidc = withOidcDefaults(app.oidc ?? OIDC_DEFAULTS, change.oidc);
    checkOidcConfig(oidc);
    return { type: 'OIDC', oidc };
  }
  if (change.type === 'API') {
    const api = withoutEmptyResource({ ...(app.api ?? API_DEFAULTS), ...definedOnly(change.api) });
    checkApiConfig(api);
    return { type: 'API', api };
  }
  checkSamlAppConfig(change.saml);
  return { type: 'SAML', saml: change.saml };
}

async function setState(
  ctx: Ctx,
  applicationId: string,
  from: 'ACTIVE' | 'INACTIVE',
  to: 'ACTIVE' | 'INACTIVE',
  event: 'project.application.deactivated' | 'project.application.reactivated',
) {
  return execute(ctx, async (work) => {
    const app = await writableApplication(work, applicationId);
    if (app.state !== from) {
      throw failedPrecondition(
        to === 'INACTIVE' ? 'Errors.Application.NotActive' : 'Errors.Application.NotInactive',
        to === 'INACTIVE' ? 'the application is not active' : 'the application is not deactivated',
      );
    }
    const [row] = await work.tx
      .update(applications)
      .set({ state: to, changedAt: new Date() })
      .where(eq(applications.id, app.id))
      .returning({ changedAt: applications.changedAt });
    eventsFor(work, app.projectId, app.orgId)(event, { appId: app.id });
    return { changedAt: row.changedAt };
  });
}

export const deactivateApplication = (ctx: Ctx, applicationId: string) =>
  setState(ctx, applicationId, 'ACTIVE', 'INACTIVE', 'project.application.deactivated');

export const reactivateApplication = (ctx: Ctx, applicationId: string) =>
  setState(ctx, applicationId, 'INACTIVE', 'ACTIVE', 'project.application.reactivated');

/** Removes the application and its keys. An already removed application is a success. */
export async function deleteApplication(ctx: Ctx, applicationId: string): Promise<{ deletedAt: Date }> {
  return execute(ctx, async (work) => {
    const app = await writableApplication(work, applicationId, { removed: true });
    if (app.state === 'REMOVED') return { deletedAt: app.changedAt };
    refuseConsoleApplication(app.id);
    const [row] = await work.tx
      .update(applications)
      .set({ state: 'REMOVED', secretHash: null, changedAt: new Date() })
      .where(eq(applications.id, app.id))
      .returning({ changedAt: applications.changedAt });
    await work.tx.delete(applicationKeys).where(eq(applicationKeys.applicationId, app.id));
    eventsFor(work, app.projectId, app.orgId)('project.application.removed', { appId: app.id, clientId: app.clientId });
    return { deletedAt: row.changedAt };
  });
}

/** Replaces the client secret of a secret-based application; returns the new one (shown once). */
export async function generateClientSecret(
  ctx: Ctx,
  applicationId: string,
): Promise<{ clientSecret: string; createdAt: Date }> {
  return execute(ctx, async (work) => {
    const app = await writableApplication(work, applicationId);
    const type = app.type as AppType;
    if (!usesSecret(type, type === 'OIDC' ? app.oidc : app.api)) {
      throw failedPrecondition(
        'Errors.Application.NoSecretMethod',
        'the application does not authenticate with a client secret (auth_method_type must be BASIC or POST)',
      );
    }
    const clientSecret = newClientSecret();
    const [row] = await work.tx
      .update(applications)
      .set({ secretHash: hashSecret(clientSecret), changedAt: new Date() })
      .where(eq(applications.id, app.id))
      .returning({ changedAt: applications.changedAt });
    eventsFor(work, app.projectId, app.orgId)('project.application.secret.changed', { appId: app.id });
    return { clientSecret, createdAt: row.changedAt };
  });
}

export { writableApplication as loadWritableApplication, eventsFor as applicationEvents };
