import type { EmailVerification } from './create-user-input';
import { storePassword } from './password';
import type { UnitOfWork } from '../execute';
import { desc, and, eq } from 'drizzle-orm';
import { events, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument } from '../errors';
import { execute } from '../execute';
import { authorize, readUser, userForChange, userNotFound, type UserWithOrg } from './access';
import { consumeCode, currentCode, issueCode } from './codes';
import { preparePassword } from './password';
import { checkEmail, checkId, checkUrlTemplate } from './validate';

function requireHuman(user: UserWithOrg): void {
  if (user.type !== 'HUMAN') throw failedPrecondition('Errors.User.NotHuman', 'the user is a machine user');
}

/** SetEmail: the user itself or `user.write`; only administrators may mark the address verified. */
export async function setEmail(ctx: Ctx, input: { userId: string; email: string; verification: EmailVerification }) {
  const userId = checkId('user_id', input.userId);
  const email = checkEmail('email', input.email);
  if ('send' in input.verification) checkUrlTemplate('send_code.url_template', input.verification.send.urlTemplate);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write', { self: true });
    requireHuman(user);
    if ('verified' in input.verification) authorize(ctx, user, 'user.write');
    const code = await changeEmail(work, user, email, input.verification);
    return { changedAt: new Date(), code };
  });
}

/** ResendEmailCode: a new code for the current, unverified address. */
export async function resendEmailCode(
  ctx: Ctx,
  input: { userId: string; verification: { send: { urlTemplate?: string } } | { return: true } },
) {
  const userId = checkId('user_id', input.userId);
  if ('send' in input.verification) checkUrlTemplate('send_code.url_template', input.verification.send.urlTemplate);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write', { self: true });
    requireHuman(user);
    if (!user.email) throw failedPrecondition('Errors.User.Email.Missing', 'the user has no email address');
    if (user.emailVerified)
      throw failedPrecondition('Errors.User.Email.AlreadyVerified', 'the email address is already verified');
    const code = await issueCode(work, user, 'EMAIL_VERIFICATION', input.verification, user.email);
    return { changedAt: new Date(), code };
  });
}

/** VerifyEmail: the code must be the live one and issued for the current address. */
export async function verifyEmail(ctx: Ctx, input: { userId: string; code: string }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  if (!input.code) throw invalidArgument('Errors.User.Code.Empty', 'verification_code is required');
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write', { self: true });
    requireHuman(user);
    const { target } = await consumeCode(work, userId, 'EMAIL_VERIFICATION', input.code, 'verification_code');
    if (target && target !== user.email)
      throw invalidArgument('Errors.User.Code.Invalid', 'verification_code is invalid or expired');
    const now = new Date();
    await work.tx.update(users).set({ emailVerified: true, changedAt: now }).where(eq(users.id, userId));
    pushEmailVerified(work, user, user.email);
    return now;
  });
}

/** CreateInviteCode: an invitation to a human user that has an email address. */
export async function createInviteCode(
  ctx: Ctx,
  input: { userId: string; delivery: { send: { urlTemplate?: string; applicationName?: string } } | { return: true } },
) {
  const userId = checkId('user_id', input.userId);
  if ('send' in input.delivery) {
    checkUrlTemplate('send_code.url_template', input.delivery.send.urlTemplate);
    if ((input.delivery.send.applicationName?.length ?? 0) > 200)
      throw invalidArgument('Errors.User.Invalid', 'send_code.application_name must be at most 200 characters');
  }
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    requireHuman(user);
    if (!user.email) throw failedPrecondition('Errors.User.Email.Missing', 'the user has no email address');
    const applicationName = 'send' in input.delivery ? input.delivery.send.applicationName : undefined;
    const code = await issueCode(work, user, 'INVITATION', input.delivery, user.email, { applicationName });
    return { changedAt: new Date(), code };
  });
}

/** ResendInviteCode: a new invitation by email, with the link and application name of the last one. */
export async function resendInviteCode(ctx: Ctx, input: { userId: string }): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    requireHuman(user);
    const live = await currentCode(work, userId, 'INVITATION');
    const [last] = await work.tx
      .select({ payload: events.payload })
      .from(events)
      .where(
        and(
          eq(events.aggregateType, 'user'),
          eq(events.aggregateId, userId),
          eq(events.eventType, 'user.human.invite.code.added'),
        ),
      )
      .orderBy(desc(events.position))
      .limit(1);
    if (!live || !last)
      throw failedPrecondition(
        'Errors.User.Invite.Missing',
        'the user has no invitation to resend; use CreateInviteCode',
      );
    if (last.payload.codeReturned)
      throw failedPrecondition(
        'Errors.User.Invite.Returned',
        'the last invitation code was returned to the caller, not sent; use CreateInviteCode',
      );
    await issueCode(
      work,
      user,
      'INVITATION',
      {
        send: {
          urlTemplate: live.urlTemplate ?? undefined,
          applicationName: last.payload.applicationName as string | undefined,
        },
      },
      user.email!,
      {
        applicationName: last.payload.applicationName as string | undefined,
      },
    );
    return new Date();
  });
}

/**
 * VerifyInviteCode: with the invitation code the user sets its password; the email address is thereby
 * verified and a v1 user in INITIAL state becomes ACTIVE.
 */
export async function verifyInviteCode(
  ctx: Ctx,
  input: { userId: string; code: string; password: string },
): Promise<Date> {
  const userId = checkId('user_id', input.userId);
  if (!input.code) throw invalidArgument('Errors.User.Code.Empty', 'verification_code is required');
  const before = await readUser(ctx.db, userId);
  if (!before) throw userNotFound();
  authorize(ctx, before, 'user.write', { self: true });
  const password = await preparePassword(ctx, ctx.instanceId, 'password', { password: input.password }, 'password');
  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write', { self: true });
    requireHuman(user);
    await consumeCode(work, userId, 'INVITATION', input.code, 'verification_code');
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.human.invite.code.verified',
      payload: {},
      resourceOwner: user.orgId,
    });
    const now = await storePassword(work, user, password);
    if (!user.emailVerified) {
      await work.tx.update(users).set({ emailVerified: true }).where(eq(users.id, userId));
      pushEmailVerified(work, user, user.email);
    }
    if (user.state === 'INITIAL') {
      await work.tx.update(users).set({ state: 'ACTIVE' }).where(eq(users.id, userId));
      work.push({
        aggregateType: 'user',
        aggregateId: userId,
        type: 'user.initialized',
        payload: {},
        resourceOwner: user.orgId,
      });
    }
    return now;
  });
}

/** Sets a new email address and issues its verification code unless it is marked verified. */
export async function changeEmail(
  work: UnitOfWork,
  user: UserWithOrg,
  email: string,
  verification: EmailVerification,
): Promise<string | undefined> {
  const verified = 'verified' in verification;
  await work.tx
    .update(users)
    .set({ email, emailVerified: verified, changedAt: new Date() })
    .where(eq(users.id, user.id));
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.email.changed',
    payload: { email },
    resourceOwner: user.orgId,
  });
  if (verified) {
    pushEmailVerified(work, user, email);
    return undefined;
  }
  const delivery = 'return' in verification ? ({ return: true } as const) : { send: verification.send };
  return issueCode(work, user, 'EMAIL_VERIFICATION', delivery, email);
}

/** Records that the user's address is verified (the caller has updated the row). */
function pushEmailVerified(work: UnitOfWork, user: UserWithOrg, email: string | null): void {
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.email.verified',
    payload: { email },
    resourceOwner: user.orgId,
  });
}
