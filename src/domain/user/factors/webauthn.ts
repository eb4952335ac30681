import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { and, desc, eq } from 'drizzle-orm';
import { verifySecret } from '../../../crypto/secrets';
import { userFactors } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { failedPrecondition, invalidArgument, notFound } from '../../errors';
import { execute, type UnitOfWork } from '../../execute';
import { webauthnLibrary } from './webauthn-library';
import { newId } from '../../ids';
import { factorRemovalRefusal } from '../../policy/factor-removal';
import { recordFactorCheck } from '../../session/factors';
import { requireLoginUiPermission } from '../../session/login-ui-permission';
import { authorize, readUser, type UserWithOrg, userForChange, userNotFound } from '../access';
import { type CodeDelivery, consumeCode, currentCode, issueCode } from '../codes';
import { userForFactorChange } from './common';
import { relyingParty } from './relying-party';

/**
 * A passkey: a discoverable credential that verifies the user (PIN, biometrics), a sign-in without a
 * password. A security key: a U2F-style second factor after the password (user presence is enough).
 */
export type AuthenticatorType = 'passkey' | 'securityKey';

/** How long a browser has to answer a registration or sign-in ceremony. */
export const CEREMONY_TIMEOUT_MS = 5 * 60_000;

export type Passkey = typeof userFactors.$inferSelect;

/** The registration code of a passkey registration link (CreatePasskeyRegistrationLink). */
const LINK = 'PASSKEY_REGISTRATION';

/** Bytes as base64url, and back: how credential ids and public keys are stored. */
export const toBase64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
export const fromBase64Url = (text: string) => new Uint8Array(Buffer.from(text, 'base64url'));

/**
 * The user a registration acts for. Without a registration code: the user itself, or an administrator
 * with `user.write` on the user's organization who covers the user's permissions. With a code from
 * CreatePasskeyRegistrationLink: the login UI (a caller with `user.write` on the instance, as every
 * SessionService caller), acting for the user who received the link; the code must be live, and
 * `consume` uses it up (the verification of the registration does).
 */
async function registeringUser(
  work: UnitOfWork,
  userId: string,
  code: string | undefined,
  consume: boolean,
): Promise<UserWithOrg> {
  if (code === undefined) return userForFactorChange(work, userId);
  requireLoginUiPermission(work.ctx);
  await work.load('user', userId);
  const user = await readUser(work.tx, userId);
  if (!user || user.type !== 'HUMAN') throw userNotFound();
  if (consume) {
    await consumeCode(work, user.id, LINK, code, 'code');
  } else {
    const row = await currentCode(work, user.id, LINK);
    if (!row || !verifySecret(row.codeHash, code.trim().toUpperCase()) || row.expiresAt.getTime() < Date.now())
      throw invalidArgument('Errors.User.Code.Invalid', 'code is invalid or expired');
  }
  return user;
}

/** The user's ready WebAuthn credentials (of one RP id, when given). */
export async function readyPasskeys(db: UnitOfWork['tx'], userId: string, rpId?: string): Promise<Passkey[]> {
  return db
    .select()
    .from(userFactors)
    .where(
      and(
        eq(userFactors.userId, userId),
        eq(userFactors.type, 'webauthn'),
        eq(userFactors.state, 'ready'),
        rpId ? eq(userFactors.rpId, rpId) : undefined,
      ),
    )
    .orderBy(userFactors.createdAt);
}

export interface PasskeyRegistration {
  /** id of the pending credential, for VerifyPasskeyRegistration */
  id: string;
  /** `PublicKeyCredentialCreationOptionsJSON` for navigator.credentials.create() */
  options: PublicKeyCredentialCreationOptionsJSON;
}

/**
 * RegisterPasskey: options for navigator.credentials.create() and a pending credential holding the
 * challenge (replacing an earlier pending one of the user). A passkey asks for a resident key and user
 * verification; a security key for neither. The RP id is the instance domain the request names (or
 * the instance's domain); credentials the user has for it already are excluded.
 */
export async function registerPasskey(
  ctx: Ctx,
  input: { userId: string; type: AuthenticatorType; domain?: string; code?: string },
  externalUrl: string,
): Promise<PasskeyRegistration> {
  return execute(ctx, async (work) => {
    const user = await registeringUser(work, input.userId, input.code, false);
    const rp = await relyingParty(work.tx, ctx.instanceId, externalUrl, input.domain);
    const existing = await readyPasskeys(work.tx, user.id, rp.id);
    const passkey = input.type === 'passkey';
    const loginName = `${user.username}@${user.primaryDomain}`;
    const { generateRegistrationOptions } = await webauthnLibrary();
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: loginName,
      userID: new TextEncoder().encode(user.id),
      userDisplayName: user.displayName || loginName,
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((c) => ({ id: c.credentialId!, transports: c.transports ?? undefined })),
      authenticatorSelection: passkey
        ? { residentKey: 'required', requireResidentKey: true, userVerification: 'required' }
        : { residentKey: 'discouraged', requireResidentKey: false, userVerification: 'discouraged' },
    });
    await work.tx
      .delete(userFactors)
      .where(and(eq(userFactors.userId, user.id), eq(userFactors.type, 'webauthn'), eq(userFactors.state, 'pending')));
    const id = newId();
    await work.tx.insert(userFactors).values({
      id,
      userId: user.id,
      orgId: user.orgId,
      type: 'webauthn',
      state: 'pending',
      rpId: rp.id,
      passwordless: passkey,
      challenge: options.challenge,
    });
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.passkey.added',
      payload: { passkeyId: id, passwordless: passkey, rpId: rp.id, byCode: input.code !== undefined },
      resourceOwner: user.orgId,
    });
    return { id, options };
  });
}

/**
 * VerifyPasskeyRegistration: the browser's answer to the registration options (a `RegistrationResponseJSON`)
 * must carry the pending credential's challenge, come from an origin of its RP id, and — for a passkey —
 * report user verification. The credential then is ready. A registration code is used up here. In the
 * hosted login the registration also checks the factor in the signed-in session (`sessionId`).
 */
export async function verifyPasskeyRegistration(
  ctx: Ctx,
  input: { userId: string; passkeyId: string; credential: unknown; name: string; code?: string },
  externalUrl: string,
  opts: { sessionId?: string } = {},
): Promise<void> {
  const name = input.name.trim();
  if (name.length > 200) throw invalidArgument('Errors.User.Passkey.Name', 'passkey_name: at most 200 characters');
  await execute(ctx, async (work) => {
    const user = await registeringUser(work, input.userId, input.code, true);
    const [factor] = await work.tx
      .select()
      .from(userFactors)
      .where(
        and(
          eq(userFactors.id, input.passkeyId),
          eq(userFactors.userId, user.id),
          eq(userFactors.type, 'webauthn'),
          eq(userFactors.state, 'pending'),
        ),
      );
    if (!factor?.challenge || !factor.rpId)
      throw notFound('Errors.User.Passkey.NotPending', 'no registration of this passkey is pending');
    if (factor.createdAt.getTime() + CEREMONY_TIMEOUT_MS * 2 < Date.now())
      throw failedPrecondition('Errors.User.Passkey.Expired', 'the registration expired; register again');
    const rp = await relyingParty(work.tx, ctx.instanceId, externalUrl, factor.rpId);
    const response = registrationResponse(input.credential);
    const { verifyRegistrationResponse } = await webauthnLibrary();
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: factor.challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserVerification: factor.passwordless,
    }).catch((err: Error) => {
      throw invalidArgument('Errors.User.Passkey.Invalid', `public_key_credential: ${err.message}`);
    });
    if (!result.verified) throw invalidArgument('Errors.User.Passkey.Invalid', 'public_key_credential: not verified');
    const info = result.registrationInfo;
    const backupEligible = info.credentialDeviceType === 'multiDevice';
    await work.tx
      .update(userFactors)
      .set({
        state: 'ready',
        name: name || (factor.passwordless ? 'Passkey' : 'Security key'),
        credentialId: info.credential.id,
        publicKey: toBase64Url(info.credential.publicKey),
        signCount: info.credential.counter,
        transports: response.response.transports ?? info.credential.transports ?? [],
        backupEligible,
        challenge: null,
        changedAt: new Date(),
      })
      .where(and(eq(userFactors.id, factor.id), eq(userFactors.state, 'pending')));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.passkey.verified',
      payload: {
        passkeyId: factor.id,
        passwordless: factor.passwordless,
        rpId: factor.rpId,
        byCode: input.code !== undefined,
      },
      resourceOwner: user.orgId,
    });
    if (opts.sessionId)
      await recordFactorCheck(work, opts.sessionId, user, 'webAuthN', {
        userVerified: info.userVerified,
        synced: backupEligible,
      });
  });
}

/** The browser's credential as a RegistrationResponseJSON, or INVALID_ARGUMENT. */
function registrationResponse(value: unknown): RegistrationResponseJSON {
  const v = value as Partial<RegistrationResponseJSON> | null;
  if (
    !v ||
    typeof v !== 'object' ||
    typeof v.id !== 'string' ||
    typeof v.rawId !== 'string' ||
    typeof v.response?.clientDataJSON !== 'string' ||
    typeof v.response?.attestationObject !== 'string'
  )
    throw invalidArgument(
      'Errors.User.Passkey.Invalid',
      'public_key_credential must be a RegistrationResponseJSON (id, rawId, response.clientDataJSON, ' +
        'response.attestationObject, type)',
    );
  return {
    ...v,
    type: 'public-key',
    clientExtensionResults: v.clientExtensionResults ?? {},
  } as RegistrationResponseJSON;
}

/** ListPasskeys: the user's WebAuthn credentials (pending ones too). The user itself, or `user.read`. */
export async function listPasskeys(ctx: Ctx, userId: string): Promise<Passkey[]> {
  const user = await readUser(ctx.db, userId);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  return ctx.db
    .select()
    .from(userFactors)
    .where(and(eq(userFactors.userId, user.id), eq(userFactors.type, 'webauthn')))
    .orderBy(desc(userFactors.createdAt));
}

/** RemovePasskey: removes one of the user's WebAuthn credentials (ready or pending). */
export async function removePasskey(ctx: Ctx, userId: string, passkeyId: string): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const [factor] = await work.tx
      .select()
      .from(userFactors)
      .where(and(eq(userFactors.id, passkeyId), eq(userFactors.userId, user.id), eq(userFactors.type, 'webauthn')));
    if (!factor) throw notFound('Errors.User.Passkey.NotExisting', 'the user has no such passkey');
    if (factor.state === 'ready') {
      const refusal = await factorRemovalRefusal({ db: work.tx, runtime: work.ctx.runtime }, user, { id: factor.id });
      if (refusal) throw refusal;
    }
    await work.tx.delete(userFactors).where(eq(userFactors.id, factor.id));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.passkey.removed',
      payload: { passkeyId: factor.id },
      resourceOwner: user.orgId,
    });
  });
}

/** Where a passkey registration link points unless the caller gives a template. */
export const registrationLinkTemplate = (externalUrl: string) =>
  `${externalUrl}/ui/login/passkey-registration?userId={{.UserID}}&code={{.Code}}`;

/**
 * CreatePasskeyRegistrationLink: a one-time code (valid 24 hours, replacing an earlier one) with which
 * the user registers a passkey without signing in — sent by email as a link to the hosted login's
 * registration page (or the caller's template), or returned for the caller's own delivery. Onboarding
 * is an administrator's act: it needs `user.write` on the user's organization (and covering the user's
 * permissions); a user registers its own passkeys with RegisterPasskey.
 */
export async function createPasskeyRegistrationLink(
  ctx: Ctx,
  userId: string,
  delivery: CodeDelivery,
  externalUrl: string,
): Promise<{ code?: string; expiresAt: Date }> {
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    if (user.type !== 'HUMAN') throw failedPrecondition('Errors.User.NotHuman', 'only human users have passkeys');
    if ('send' in delivery && !user.email)
      throw failedPrecondition('Errors.User.Email.Missing', 'the user has no email address to send the link to');
    const send =
      'send' in delivery
        ? {
            send: { ...delivery.send, urlTemplate: delivery.send.urlTemplate || registrationLinkTemplate(externalUrl) },
          }
        : delivery;
    const code = await issueCode(work, user, LINK, send, user.email ?? '');
    const row = await currentCode(work, user.id, LINK);
    return { code, expiresAt: row!.expiresAt };
  });
}
