import { and, eq, inArray, ne } from 'drizzle-orm';
import { applicationKeys, applications } from '../../../db/schema/index';
import { randomToken } from '../../../crypto/random';
import { hashSecret, verifySecret } from '../../../crypto/secrets';
import type { Ctx } from '../../context';
import { DomainError } from '../../errors';
import { execute, type UnitOfWork } from '../../execute';
import { newId } from '../../ids';
import { invalidClientMetadata, invalidRedirectUri, invalidToken } from '../../oidc/oauth-errors';
import { applicationEvents, createApplicationIn, deleteApplication, updateApplicationIn } from '../commands';
import { complianceProblems } from '../compliance';
import { OIDC_DEFAULTS, withOidcDefaults } from '../model';
import { readClientMetadata, type RequestedClient } from './metadata';

/** Where self-registered clients land and what they may ask for (from the instance settings). */
export interface RegistrationPolicy {
  projectId: string;
  allowedGrantTypes: string[];
}

/** A registered client as the RFC 7591 / 7592 responses describe it. */
export interface RegisteredClient {
  applicationId: string;
  clientId: string;
  /** only when it was just generated: it is stored as a hash */
  clientSecret?: string;
  hasSecret: boolean;
  issuedAt: Date;
  /** only in the registration response */
  registrationAccessToken?: string;
  name: string;
  oidc: RequestedClient['oidc'];
  keys: { id: string; publicKey: string }[];
}

/** RFC 7591 §3: registers a client in the policy's project through CreateApplication's own rules. */
export async function registerClient(ctx: Ctx, policy: RegistrationPolicy, body: unknown): Promise<RegisteredClient> {
  const requested = checkedRequest(body, policy);
  const token = randomToken(32);
  return execute(ctx, async (work) => {
    const created = await asRegistrationError(() =>
      createApplicationIn(work, {
        projectId: policy.projectId,
        name: requested.name,
        config: { type: 'OIDC', oidc: requested.oidc },
      }),
    );
    await work.tx
      .update(applications)
      .set({ registrationTokenHash: hashSecret(token) })
      .where(eq(applications.id, created.id));
    const clientId = created.clientId as string;
    const keys = await addKeys(work, { id: created.id, clientId, projectId: policy.projectId }, requested.keys);
    return {
      applicationId: created.id,
      clientId,
      clientSecret: created.clientSecret,
      hasSecret: Boolean(created.clientSecret),
      issuedAt: created.createdAt,
      registrationAccessToken: token,
      name: requested.name,
      oidc: requested.oidc,
      keys,
    };
  });
}

/** RFC 7592 §2.1: the client's current registration. */
export async function readRegisteredClient(ctx: Ctx, clientId: string, token: string): Promise<RegisteredClient> {
  const app = await registeredApplication(ctx.db, clientId, token);
  return clientOf(app, await keysOf(ctx.db, app.id));
}

/**
 * RFC 7592 §2.2: replaces the client's metadata (omitted fields take their defaults) with
 * UpdateApplication's rules; the keys of a private_key_jwt client are replaced by the sent `jwks`.
 */
export async function updateRegisteredClient(
  ctx: Ctx,
  policy: RegistrationPolicy,
  clientId: string,
  token: string,
  body: unknown,
): Promise<RegisteredClient> {
  await registeredApplication(ctx.db, clientId, token);
  const m = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (m.client_id !== clientId) throw invalidClientMetadata('client_id in the body must be the client being updated');
  const requested = checkedRequest(body, policy);
  return execute(ctx, async (work) => {
    const app = await registeredApplication(work.tx, clientId, token);
    if (m.client_secret !== undefined && !verifySecret(app.secretHash, String(m.client_secret)))
      throw invalidClientMetadata('client_secret does not match the client');
    const updated = await asRegistrationError(() =>
      updateApplicationIn(work, {
        applicationId: app.id,
        name: requested.name,
        config: { type: 'OIDC', oidc: requested.oidc },
      }),
    );
    const old = await work.tx
      .delete(applicationKeys)
      .where(eq(applicationKeys.applicationId, app.id))
      .returning({ id: applicationKeys.id });
    const push = applicationEvents(work, app.projectId, app.orgId);
    for (const k of old) push('project.application.key.removed', { appId: app.id, keyId: k.id });
    const keys = await addKeys(work, { id: app.id, clientId, projectId: app.projectId }, requested.keys);
    const [row] = await work.tx.select().from(applications).where(eq(applications.id, app.id));
    return { ...clientOf(row, keys), clientSecret: updated.clientSecret };
  });
}

/** RFC 7592 §2.3: removes the application (DeleteApplication: its keys go, its events are written). */
export async function deleteRegisteredClient(ctx: Ctx, clientId: string, token: string): Promise<void> {
  const app = await registeredApplication(ctx.db, clientId, token);
  await deleteApplication(ctx, app.id);
}

/**
 * The metadata read and checked before any write: a redirect URI that the compliance rules find
 * fault with is refused here (an application created through the API is saved with its problems
 * listed; a client registering itself has no operator to read them).
 */
function checkedRequest(body: unknown, policy: RegistrationPolicy): RequestedClient {
  const requested = readClientMetadata(body, policy.allowedGrantTypes);
  const problems = complianceProblems(withOidcDefaults(OIDC_DEFAULTS, requested.oidc));
  const uriProblem = problems.find((p) => /^OIDC\.(PostLogout)?RedirectUris\./.test(p.key));
  if (uriProblem) throw invalidRedirectUri(uriProblem.message);
  if (problems.length > 0) throw invalidClientMetadata(problems[0].message);
  return requested;
}

/** CreateApplication's and UpdateApplication's argument errors in RFC 7591's two codes. */
async function asRegistrationError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'invalid_argument' && err.key.startsWith('Errors.Application.')) {
      if (err.key.startsWith('Errors.Application.Uri')) throw invalidRedirectUri(err.message);
      throw invalidClientMetadata(err.message);
    }
    throw err;
  }
}

type AppRow = typeof applications.$inferSelect;

/**
 * The live self-registered application behind a client id whose registration access token this is.
 * An unknown client, a client created through the API and a wrong token all answer the same 401,
 * so the endpoint tells nobody which client ids exist.
 */
async function registeredApplication(db: Ctx['db'], clientId: string, token: string): Promise<AppRow> {
  const [row] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.clientId, clientId), ne(applications.state, 'REMOVED')));
  if (!row?.registrationTokenHash || !token || !verifySecret(row.registrationTokenHash, token))
    throw invalidToken('the registration access token is not valid for this client');
  return row;
}

async function keysOf(db: Ctx['db'], applicationId: string) {
  return db
    .select({ id: applicationKeys.id, publicKey: applicationKeys.publicKey })
    .from(applicationKeys)
    .where(eq(applicationKeys.applicationId, applicationId));
}

/**
 * Stores a private_key_jwt client's public keys. The key id is the `kid` the client signs with
 * (client assertions are matched by it), so it must not be taken by another application's key.
 */
async function addKeys(
  work: UnitOfWork,
  app: { id: string; clientId: string; projectId: string },
  keys: RequestedClient['keys'],
): Promise<{ id: string; publicKey: string }[]> {
  if (keys.length === 0) return [];
  const rows = keys.map((k) => ({ id: k.kid ?? newId(), publicKey: k.publicKey }));
  if (new Set(rows.map((r) => r.id)).size !== rows.length) throw invalidClientMetadata('jwks lists a kid twice');
  const taken = await work.tx
    .select({ id: applicationKeys.id })
    .from(applicationKeys)
    .where(
      inArray(
        applicationKeys.id,
        rows.map((r) => r.id),
      ),
    );
  if (taken.length > 0) throw invalidClientMetadata(`kid "${taken[0].id}" is already in use: choose another`);
  await work.tx
    .insert(applicationKeys)
    .values(rows.map((r) => ({ id: r.id, applicationId: app.id, clientId: app.clientId, publicKey: r.publicKey })));
  const [owner] = await work.tx
    .select({ orgId: applications.orgId })
    .from(applications)
    .where(eq(applications.id, app.id));
  const push = applicationEvents(work, app.projectId, owner.orgId);
  for (const r of rows) push('project.application.key.added', { appId: app.id, keyId: r.id, keyType: 'JWK' });
  return rows;
}

function clientOf(app: AppRow, keys: { id: string; publicKey: string }[]): RegisteredClient {
  const oidc = app.oidc ?? OIDC_DEFAULTS;
  return {
    applicationId: app.id,
    clientId: app.clientId as string,
    hasSecret: Boolean(app.secretHash),
    issuedAt: app.createdAt,
    name: app.name,
    oidc: {
      redirectUris: oidc.redirectUris,
      postLogoutRedirectUris: oidc.postLogoutRedirectUris,
      grantTypes: oidc.grantTypes,
      responseTypes: oidc.responseTypes,
      applicationType: oidc.applicationType,
      authMethodType: oidc.authMethodType,
      dpopBoundAccessTokens: !!oidc.dpopBoundAccessTokens,
    },
    keys,
  };
}
