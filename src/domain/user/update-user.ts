import { checkUsernameDomain } from './login-name-domain';
import { eq } from 'drizzle-orm';
import { users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import type { EventPayloads, EventType } from '../events/registry';
import { execute } from '../execute';
import { authorize, readUser, userForChange, userNotFound, type UserWithOrg } from './access';
import { issueCode } from './codes';
import { type PasswordInput, prepareHumanPassword } from './password';
import {
  checkEmail,
  checkId,
  checkLanguage,
  checkPhone,
  checkUrlTemplate,
  checkMachineUsername,
  checkUsername,
  optionalText,
  requireText,
} from './validate';
import type { CreateHumanInput, EmailVerification, PhoneVerification } from './create-user-input';
import { changeEmail } from './email';
import { storePassword } from './password';

// UpdateUser: only the given fields change, with one event per kind of change.

export interface UpdateUserInput {
  userId: string;
  username?: string;
  human?: {
    profile?: Partial<NonNullable<CreateHumanInput['profile']>>;
    email?: { email: string; verification: EmailVerification };
    phone?: { phone: string; verification: PhoneVerification };
    password?: PasswordInput;
  };
  machine?: { name?: string; description?: string; accessTokenType?: 'BEARER' | 'JWT' };
}

/** UpdateUser: changes only the given fields, one event per kind of change. */
export async function updateUser(
  ctx: Ctx,
  input: UpdateUserInput,
): Promise<{ changedAt: Date; emailCode?: string; phoneCode?: string }> {
  const userId = checkId('user_id', input.userId);
  const username = input.username !== undefined ? checkUsername('username', input.username) : undefined;
  const h = input.human;
  const m = input.machine;
  const profile = h?.profile
    ? {
        givenName:
          h.profile.givenName !== undefined ? requireText('human.profile.given_name', h.profile.givenName) : undefined,
        familyName:
          h.profile.familyName !== undefined
            ? requireText('human.profile.family_name', h.profile.familyName)
            : undefined,
        nickName: optionalText('human.profile.nick_name', h.profile.nickName),
        displayName: optionalText('human.profile.display_name', h.profile.displayName),
        preferredLanguage: checkLanguage('human.profile.preferred_language', h.profile.preferredLanguage),
        gender: h.profile.gender,
      }
    : undefined;
  const email = h?.email ? checkEmail('human.email.email', h.email.email) : undefined;
  if (h?.email && 'send' in h.email.verification)
    checkUrlTemplate('human.email.send_code.url_template', h.email.verification.send.urlTemplate);
  const phone = h?.phone ? checkPhone('human.phone.phone', h.phone.phone) : undefined;
  const machine = m
    ? {
        name: m.name !== undefined ? requireText('machine.name', m.name) : undefined,
        description: optionalText('machine.description', m.description, 500),
        accessTokenType: m.accessTokenType,
      }
    : undefined;

  // Authorize before hashing a password: hashing costs time the caller should not be able to waste.
  const before = await readUser(ctx.db, userId);
  if (!before) throw userNotFound();
  // The user may change their own profile, email and phone (the account page); the username, a password
  // set without the current one, a machine's fields and an address marked verified stay administrators'.
  const self = selfServiceOnly(input);
  authorize(ctx, before, 'user.write', { self });
  if (h?.password) authorize(ctx, before, 'user.credential.write');
  const password = h?.password ? await prepareHumanPassword(ctx, ctx.instanceId, h.password) : undefined;

  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write', { self });
    if (h && user.type !== 'HUMAN') throw invalidArgument('Errors.User.NotHuman', 'human: the user is a machine user');
    if (m && user.type !== 'MACHINE')
      throw invalidArgument('Errors.User.NotMachine', 'machine: the user is a human user');
    const push = <T extends EventType>(type: T, payload: EventPayloads[T]) =>
      work.push({ aggregateType: 'user', aggregateId: userId, type, payload, resourceOwner: user.orgId });
    const set: Partial<typeof users.$inferInsert> = {};
    const out: { changedAt: Date; emailCode?: string; phoneCode?: string } = { changedAt: new Date() };

    if (username !== undefined && username !== user.username) {
      if (user.type === 'MACHINE') checkMachineUsername('username', username);
      await checkUsernameDomain(work.tx, user.orgId, username);
      set.username = username;
      push('user.username.changed', { userName: username });
    }
    if (profile) {
      const changed = definedOnly(profile);
      const diff = Object.fromEntries(Object.entries(changed).filter(([k, v]) => (user as any)[k] !== v));
      if (Object.keys(diff).length) {
        Object.assign(set, diff);
        push('user.human.changed', diff);
      }
    }
    if (machine) {
      const diff = Object.fromEntries(
        Object.entries({
          machineName: machine.name,
          description: machine.description,
          accessTokenType: machine.accessTokenType,
        }).filter(([k, v]) => v !== undefined && (user as any)[k] !== v),
      );
      if (Object.keys(diff).length) {
        Object.assign(set, diff);
        push('user.machine.changed', {
          name: diff.machineName,
          description: diff.description,
          accessTokenType: diff.accessTokenType,
        });
      }
    }
    if (Object.keys(set).length)
      await work.tx
        .update(users)
        .set({ ...set, changedAt: out.changedAt })
        .where(eq(users.id, userId));
    if (email !== undefined)
      out.emailCode = await changeEmail(work, { ...user, ...set } as UserWithOrg, email, h!.email!.verification);
    if (phone !== undefined) {
      const verified = 'verified' in h!.phone!.verification;
      await work.tx
        .update(users)
        .set({ phone, phoneVerified: verified, changedAt: out.changedAt })
        .where(eq(users.id, userId));
      push('user.human.phone.changed', { phone });
      if (verified) push('user.human.phone.verified', {});
      else if ('return' in h!.phone!.verification)
        out.phoneCode = await issueCode(work, user, 'PHONE_VERIFICATION', { return: true }, phone);
    }
    if (password) await storePassword(work, user, password);
    return out;
  });
}

/** Whether the change is one a user may make on their own account without `user.write`. */
function selfServiceOnly(input: UpdateUserInput): boolean {
  const h = input.human;
  if (input.username !== undefined || input.machine || h?.password) return false;
  if (h?.email && 'verified' in h.email.verification) return false;
  if (h?.phone && 'verified' in h.phone.verification) return false;
  return true;
}

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
