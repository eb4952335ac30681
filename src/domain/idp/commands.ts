import { and, eq } from 'drizzle-orm';
import { membershipsOf } from '../administrator/memberships';
import { idpLinks, identityProviders } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { type UnitOfWork, execute } from '../execute';
import { newId } from '../ids';
import { orgForChange } from '../org/access';
import { isDevelopmentIssuer } from '../outbound/development';
import { providerFor, requireProviderPermission } from './access';
import { type IdpEnv, oauthCallbackUrl, samlAcsUrl, samlMetadataUrl } from './env';
import { DEFAULT_OPTIONS, type IdpOptions, checkOptionsOf } from './options';
import { samlMetadata } from './protocols';
import { runtimeOf } from './runtime';
import { generateSpKeys } from './saml/config';
import { mergeSecrets, openSecrets, sealSecrets } from './secrets';
import { KIND_INFO, type ProviderSpec, type SecretsInput, type StoredSecrets } from './spec';

export interface CreateProviderInput {
  /** the owning organization; empty for the instance */
  orgId?: string;
  name: string;
  options?: IdpOptions;
  spec: ProviderSpec;
  secrets: SecretsInput;
}

export interface CreatedProvider {
  id: string;
  createdAt: Date;
  /** OIDC/OAuth: the redirect URI to register upstream; SAML: the assertion consumer service */
  callbackUrl: string;
  samlMetadataUrl?: string;
}

const METADATA_TIMEOUT_MS = 10_000;

function checkName(name: string): string {
  const n = name.trim();
  if (!n) throw invalidArgument('Errors.IdP.Invalid', 'name is required');
  if (n.length > 200) throw invalidArgument('Errors.IdP.Invalid', 'name must be at most 200 characters');
  return n;
}

/** SAML metadata given by URL is fetched once, when the provider is saved, by the guarded fetcher. */
async function withMetadata(spec: ProviderSpec, env: Pick<IdpEnv, 'externalUrl'>): Promise<ProviderSpec> {
  if (spec.kind !== 'saml' || spec.metadataXml || !spec.metadataUrl) return spec;
  const { fetchIdpMetadata } = await samlMetadata();
  const opts = { timeoutMs: METADATA_TIMEOUT_MS, development: isDevelopmentIssuer(env.externalUrl) };
  return { ...spec, metadataXml: await fetchIdpMetadata(spec.metadataUrl, opts) };
}

/** Checks the spec with its protocol's rules; returns the secrets to store. */
function checked(spec: ProviderSpec, secrets: StoredSecrets, name: string): StoredSecrets {
  const out = spec.kind === 'saml' && !secrets.samlSp ? { ...secrets, samlSp: generateSpKeys(name) } : secrets;
  runtimeOf(spec, out);
  return out;
}

export function callbackUrlOf(env: Pick<IdpEnv, 'externalUrl'>, id: string, spec: ProviderSpec) {
  if (spec.kind === 'saml') return { callbackUrl: samlAcsUrl(env, id), samlMetadataUrl: samlMetadataUrl(env, id) };
  if (spec.kind === 'ldap') return { callbackUrl: '' };
  return { callbackUrl: oauthCallbackUrl(env) };
}

export async function createIdentityProvider(
  ctx: Ctx,
  env: IdpEnv,
  input: CreateProviderInput,
): Promise<CreatedProvider> {
  requireProviderPermission(ctx.principal, input.orgId || null, true);
  const prepared = await prepareProvider(input, env);
  const createdAt = await execute(ctx, (work) => createIdentityProviderIn(work, env, prepared));
  return { id: prepared.id, createdAt, ...callbackUrlOf(env, prepared.id, prepared.spec) };
}

export interface PreparedProvider {
  id: string;
  orgId: string | null;
  name: string;
  options: IdpOptions;
  spec: ProviderSpec;
  secrets: StoredSecrets;
}

/**
 * A new provider checked by every rule that needs no database (name, options, its protocol's
 * configuration; SAML metadata given by URL fetched): what createIdentityProviderIn inserts.
 */
export async function prepareProvider(
  input: CreateProviderInput & { id?: string },
  env: Pick<IdpEnv, 'externalUrl'>,
): Promise<PreparedProvider> {
  const name = checkName(input.name);
  const options = checkOptionsOf(input.orgId || null, input.options ?? DEFAULT_OPTIONS);
  const spec = await withMetadata(input.spec, env);
  const secrets = checked(spec, mergeSecrets({}, input.secrets), name);
  return { id: input.id || newId(), orgId: input.orgId || null, name, options, spec, secrets };
}

/** Inserts a checked provider inside a running command (the bulk import adds many in one transaction). */
export async function createIdentityProviderIn(work: UnitOfWork, env: IdpEnv, p: PreparedProvider): Promise<Date> {
  if (p.orgId) await orgForChange(work, p.orgId, 'org.write');
  const info = KIND_INFO[p.spec.kind];
  const [row] = await work.tx
    .insert(identityProviders)
    .values({
      id: p.id,
      orgId: p.orgId,
      name: p.name,
      type: info.type,
      template: info.template,
      config: p.spec as unknown as Record<string, unknown>,
      secrets: sealSecrets(env.masterKey, p.secrets),
      options: p.options,
    })
    .returning({ createdAt: identityProviders.createdAt });
  pushProviderEvent(work, p.orgId, 'added', { idpId: p.id, name: p.name, ...info });
  return row.createdAt;
}

export interface UpdateProviderInput {
  id: string;
  name?: string;
  options?: IdpOptions;
  spec?: ProviderSpec;
  secrets: SecretsInput;
}

export async function updateIdentityProvider(ctx: Ctx, env: IdpEnv, input: UpdateProviderInput): Promise<Date> {
  const name = input.name === undefined ? undefined : checkName(input.name);
  const spec = input.spec && (await withMetadata(input.spec, env));
  return execute(ctx, async (work) => {
    const row = await providerFor(work.tx, ctx.principal, input.id, true, 'update');
    const options = input.options && checkOptionsOf(row.orgId, input.options);
    const current = row.config as unknown as ProviderSpec;
    if (spec && spec.kind !== current.kind)
      throw invalidArgument(
        'Errors.IdP.Invalid',
        `config must stay ${current.kind}: a provider cannot change its kind (create a new one)`,
      );
    const nextSpec = spec ?? current;
    if (JSON.stringify(nextSpec) !== JSON.stringify(current)) await unlinkUncovered(work, row.id);
    const nextName = name ?? row.name;
    const secrets = checked(nextSpec, mergeSecrets(openSecrets(env.masterKey, row.secrets), input.secrets), nextName);
    const now = new Date();
    await work.tx
      .update(identityProviders)
      .set({
        name: nextName,
        options: options ?? row.options,
        config: nextSpec as unknown as Record<string, unknown>,
        secrets: sealSecrets(env.masterKey, secrets),
        changedAt: now,
      })
      .where(eq(identityProviders.id, row.id));
    pushProviderEvent(work, row.orgId, 'changed', {
      idpId: row.id,
      name: nextName,
      type: row.type,
      template: row.template,
    });
    return now;
  });
}

/**
 * A provider pointed somewhere else (another issuer, endpoint, metadata, directory or id claim) hands
 * its existing links to whoever answers there now: the caller may keep only the links of users it
 * covers (requireCovers); the others are removed, so re-pointing a trusted provider at one's own server
 * signs nobody in whom the caller could not act as anyway.
 */
async function unlinkUncovered(work: UnitOfWork, idpId: string): Promise<void> {
  const caller = work.ctx.principal;
  const links = await work.tx.select().from(idpLinks).where(eq(idpLinks.idpId, idpId));
  for (const l of links) {
    if (l.userId === caller.userId || caller.covers(await membershipsOf(work.tx, l.userId))) continue;
    await work.tx.delete(idpLinks).where(and(eq(idpLinks.idpId, idpId), eq(idpLinks.externalUserId, l.externalUserId)));
    work.push({
      aggregateType: 'user',
      aggregateId: l.userId,
      type: 'user.human.idp.link.removed',
      payload: { idpId, externalUserId: l.externalUserId },
      resourceOwner: l.orgId,
    });
  }
}

/** Removes a provider and every user's link to it: nobody signs in through it any more. */
export async function deleteIdentityProvider(ctx: Ctx, id: string): Promise<Date> {
  return execute(ctx, async (work) => {
    const row = await providerFor(work.tx, ctx.principal, id, true, 'update');
    const now = new Date();
    await work.tx
      .update(identityProviders)
      .set({ state: 'REMOVED', removedAt: now })
      .where(eq(identityProviders.id, id));
    const links = await work.tx.delete(idpLinks).where(eq(idpLinks.idpId, id)).returning();
    for (const l of links)
      work.push({
        aggregateType: 'user',
        aggregateId: l.userId,
        type: 'user.human.idp.link.removed',
        payload: { idpId: id, externalUserId: l.externalUserId },
        resourceOwner: l.orgId,
      });
    pushProviderEvent(work, row.orgId, 'removed', { idpId: id });
    return now;
  });
}

function pushProviderEvent<V extends 'added' | 'changed' | 'removed'>(
  work: UnitOfWork,
  orgId: string | null,
  verb: V,
  payload: V extends 'removed' ? { idpId: string } : { idpId: string; name: string; type: string; template: string },
): void {
  const owner = orgId ?? work.ctx.instanceId;
  work.push({
    aggregateType: orgId ? 'org' : 'instance',
    aggregateId: owner,
    type: `${orgId ? 'org' : 'instance'}.idp.${verb}` as 'org.idp.added',
    payload: payload as { idpId: string; name: string; type: string; template: string },
    resourceOwner: owner,
  });
}
