import { and, eq, gt, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import { constantTimeEqual, sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import { identityProviders, idpIntents, users } from '../../db/schema/index';
import type { Ctx, Source } from '../context';
import { DomainError, failedPrecondition, notFound } from '../errors';
import { execute, type UnitOfWork } from '../execute';
import { effectiveLoginPolicy } from '../policy/login-policy';
import { findUserById, type LoginUser } from '../session/users';
import { createUser } from '../user/create-user';
import { updateUser } from '../user/update-user';
import type { ExternalUser } from './external-user';
import { recordFactorCheck } from '../session/factors';
import type { IntentRow } from './intents/model';
import { markConsumed } from './intents/use';
import { providerForSignIn, type SignInProvider } from './intents/provider-for-sign-in';
import { addIdpLinkIn, findLinkedUserId } from './links';
import { providerCovers, requireProviderCovers } from './coverage';
import { checkPassword, type PasswordCheckResult } from '../session/password-check';

/** A provider button of the hosted login. */
export interface LoginProvider {
  id: string;
  name: string;
  type: string;
}

/**
 * The providers the login offers for a request: none when the login policy does not allow external
 * providers; else the instance's active providers and, with an organization scope, that
 * organization's own.
 */
export async function loginProviders(src: Source, instanceId: string, orgId: string | null): Promise<LoginProvider[]> {
  const { policy } = await effectiveLoginPolicy(src, instanceId, orgId);
  if (!policy.allowExternalIdp) return [];
  const scope = orgId
    ? or(isNull(identityProviders.orgId), eq(identityProviders.orgId, orgId))
    : isNull(identityProviders.orgId);
  return src.db
    .select({ id: identityProviders.id, name: identityProviders.name, type: identityProviders.type })
    .from(identityProviders)
    .where(and(scope, eq(identityProviders.state, 'ACTIVE'), isNull(identityProviders.removedAt)))
    .orderBy(identityProviders.createdAt);
}

/** Whether `idpId` is one of the buttons of this request (a form naming another provider is refused). */
export async function offeredProvider(src: Source, instanceId: string, orgId: string | null, idpId: string) {
  return (await loginProviders(src, instanceId, orgId)).some((p) => p.id === idpId);
}

/** A sign-in at an upstream that came back to the hosted login, not used yet. */
export interface ExternalSignIn {
  intent: IntentRow;
  provider: SignInProvider;
  external: ExternalUser;
  /** the user the upstream account is linked to */
  linkedUserId?: string;
}

const noSuchSignIn = () => notFound('Errors.IdP.Intent.NotFound', 'this sign-in is unknown, expired or already used');

/**
 * The succeeded intent of this auth request, from the browser that started it: the intent id in the
 * address alone is not enough (a link sent to somebody else finds nothing).
 */
export async function externalSignIn(
  db: Db,
  masterKey: Buffer,
  p: { intentId: string; authRequestId: string; bindingSecret: string | undefined },
): Promise<ExternalSignIn> {
  const [intent] = p.intentId
    ? await db
        .select()
        .from(idpIntents)
        .where(
          and(
            eq(idpIntents.id, p.intentId),
            eq(idpIntents.authRequestId, p.authRequestId),
            gt(idpIntents.expiresAt, new Date()),
          ),
        )
    : [];
  if (!intent || !intent.bindingHash || !p.bindingSecret) throw noSuchSignIn();
  if (!constantTimeEqual(sha256Hex(p.bindingSecret), intent.bindingHash)) throw noSuchSignIn();
  if (intent.state === 'FAILED')
    throw new DomainError('unauthenticated', 'Errors.IdP.Intent.Failed', intent.failureReason ?? 'the sign-in failed');
  if (intent.state !== 'SUCCEEDED' || !intent.externalUserId) throw noSuchSignIn();
  const provider = await providerForSignIn(db, masterKey, intent.idpId);
  const external = intent.externalUser as unknown as ExternalUser;
  const linkedUserId = await findLinkedUserId(db, intent.idpId, intent.externalUserId);
  return { intent, provider, external, linkedUserId };
}

/**
 * The account auto-linking proposes: by the upstream's email only when the upstream verified it and
 * exactly one human user has it verified here; by username when exactly one user has it. Searched in
 * the provider's organization, else the request's, else the instance. A user the provider cannot reach
 * (requireProviderCovers) is never proposed.
 */
export async function linkCandidate(
  db: Db,
  s: ExternalSignIn,
  requestOrgId: string | null,
): Promise<LoginUser | undefined> {
  const mode = s.provider.options.autoLinking;
  if (mode === 'NONE' || !s.provider.options.isLinkingAllowed) return undefined;
  const orgId = s.provider.row.orgId ?? requestOrgId;
  const inOrg = orgId ? eq(users.orgId, orgId) : undefined;
  const base = and(ne(users.state, 'REMOVED'), eq(users.type, 'HUMAN'), inOrg);
  let match: SQL | undefined;
  if (mode === 'EMAIL') {
    if (!s.external.emailVerified || !s.external.email) return undefined;
    match = and(base, eq(users.emailVerified, true), eq(sql`lower(${users.email})`, s.external.email.toLowerCase()));
  } else {
    if (!s.external.username) return undefined;
    match = and(base, eq(sql`lower(${users.username})`, s.external.username.toLowerCase()));
  }
  const rows = await db.select({ id: users.id }).from(users).where(match).limit(2);
  if (rows.length !== 1 || !(await providerCovers(db, s.provider.row, rows[0].id))) return undefined;
  return findUserById(db, rows[0].id);
}

/**
 * Whether linking the proposed account needs that account's own credential first. A matching email
 * or username proves only what the upstream claims, and whoever configures the upstream chooses the
 * claims; only an instance provider its administrators set to trust the upstream's verified emails
 * links by email without asking.
 */
export function linkNeedsCredential(s: ExternalSignIn): boolean {
  const o = s.provider.options;
  return !(!s.provider.row.orgId && o.trustVerifiedEmail && o.autoLinking === 'EMAIL' && s.external.emailVerified);
}

/**
 * Links the upstream account to the existing account auto-linking proposed, after the account's own
 * password when linkNeedsCredential (checked as a sign-in is: failures count towards the lockout).
 * `userCtx` acts as the user for the password check; `ctx` writes the link.
 */
export async function linkExistingAccount(
  ctx: Ctx,
  userCtx: Ctx,
  s: ExternalSignIn,
  user: LoginUser,
  password: string,
): Promise<PasswordCheckResult<undefined> | { ok: true }> {
  if (linkNeedsCredential(s)) {
    const result = await checkPassword(userCtx, user, password);
    if (!result.ok) return result;
  }
  await linkUser(ctx, s, user, 'existing');
  return { ok: true };
}

/** Refuses a user this sign-in's provider cannot reach, before anything is written for them. */
export const requireReach = (db: Db, s: ExternalSignIn, userId: string) =>
  requireProviderCovers(db, s.provider.row, userId);

/** Links the upstream account to `user` (an existing account the user confirmed, or a new one). */
export async function linkUser(ctx: Ctx, s: ExternalSignIn, user: LoginUser, why: 'existing' | 'new'): Promise<void> {
  if (why === 'existing' && !s.provider.options.isLinkingAllowed)
    throw failedPrecondition('Errors.IdP.LinkingNotAllowed', 'this identity provider does not link accounts');
  await execute(ctx, async (work) => {
    await addIdpLinkIn(work, user, {
      idpId: s.provider.row.id,
      externalUserId: s.external.id,
      externalUsername: s.external.username,
    });
  });
}

/**
 * Uses the intent up as the first factor of the browser's session of `user`, in the sign-in's unit
 * of work: the session records the check (`amr` fed), the intent can never sign in again.
 */
export async function useForSessionIn(
  work: UnitOfWork,
  s: ExternalSignIn,
  sessionId: string,
  user: LoginUser,
): Promise<void> {
  await requireProviderCovers(work.tx, s.provider.row, user.id);
  await consume(work, s, user);
  await recordFactorCheck(work, sessionId, user, 'idpIntent', {
    idpId: s.provider.row.id,
    ...(s.intent.authRequestId ? { authRequest: s.intent.authRequestId } : {}),
  });
}

/**
 * Links the upstream account to a user who has just signed in here another way (their password or
 * passkey proved the account, the intent the upstream one) and uses the intent up.
 */
export async function linkAfterSignIn(ctx: Ctx, s: ExternalSignIn, user: LoginUser): Promise<void> {
  if (!s.provider.options.isLinkingAllowed)
    throw failedPrecondition('Errors.IdP.LinkingNotAllowed', 'this identity provider does not link accounts');
  await execute(ctx, async (work) => {
    await consume(work, s, user);
    await addIdpLinkIn(work, user, {
      idpId: s.provider.row.id,
      externalUserId: s.external.id,
      externalUsername: s.external.username,
    });
  });
}

async function consume(work: UnitOfWork, s: ExternalSignIn, user: LoginUser): Promise<void> {
  if (!(await markConsumed(work, { id: s.intent.id, idpId: s.provider.row.id }, user.id, user.orgId)))
    throw noSuchSignIn();
}

/** The profile a new account gets from the upstream, and the required fields it lacks. */
export function profileFromUpstream(e: ExternalUser) {
  const values = {
    givenName: e.givenName ?? '',
    familyName: e.familyName ?? '',
    email: e.email ?? '',
    username: e.username ?? '',
  };
  const missing = (['givenName', 'familyName', 'email'] as const).filter((k) => !values[k].trim());
  return { values, missing };
}

/**
 * A new account for the upstream's user in `orgId`, linked to it: the email counts as verified only
 * when the upstream verified it and the user did not change it.
 */
export async function createLinkedUser(
  ctx: Ctx,
  s: ExternalSignIn,
  orgId: string,
  values: { givenName: string; familyName: string; email: string; username?: string },
): Promise<LoginUser> {
  if (!s.provider.options.isCreationAllowed)
    throw failedPrecondition('Errors.IdP.CreationNotAllowed', 'this identity provider does not create accounts');
  const verified = s.external.emailVerified && s.external.email?.toLowerCase() === values.email.trim().toLowerCase();
  const { id } = await createUser(ctx, {
    orgId,
    username: values.username?.trim() || undefined,
    human: {
      profile: {
        givenName: values.givenName,
        familyName: values.familyName,
        ...(s.external.displayName ? { displayName: s.external.displayName } : {}),
        ...(s.external.nickName ? { nickName: s.external.nickName } : {}),
        ...(s.external.preferredLanguage ? { preferredLanguage: s.external.preferredLanguage } : {}),
      },
      email: { email: values.email, verification: verified ? { verified: true } : { return: true } },
    },
  });
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('Errors.User.NotFound', 'user not found');
  await linkUser(ctx, s, user, 'new');
  return user;
}

/** With auto-update on, the names the upstream sends replace the profile's at each sign-in. */
export async function updateFromUpstream(ctx: Ctx, s: ExternalSignIn, userId: string): Promise<void> {
  if (!s.provider.options.isAutoUpdate) return;
  const e = s.external;
  const profile = {
    ...(e.givenName ? { givenName: e.givenName } : {}),
    ...(e.familyName ? { familyName: e.familyName } : {}),
    ...(e.displayName ? { displayName: e.displayName } : {}),
  };
  if (Object.keys(profile).length) await updateUser(ctx, { userId, human: { profile } });
}
