import { checkUsernameDomain, foreignDomainErrors } from './login-name-domain';
import { humanAddedPayload, machineAddedPayload } from './event-payloads';
import { and, eq, inArray, ne } from 'drizzle-orm';
import { invalidatePat, invalidatePrincipal } from '../../authz/authenticate';
import type { Permission } from '../../authz/roles';
import { personalAccessTokens, orgs, userCodes, userKeys, userMetadata, users } from '../../db/schema/index';
import { randomToken, sha256Hex } from '../../crypto/random';
import type { Ctx } from '../context';
import { DomainError, alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { authorize, readUser, userForChange, userNotFound, type UserWithOrg } from './access';
import { type CodeRequest, issueCode, issueCodes } from './codes';
import { submitCreate } from './create-batch';
import { type PasswordInput, preparePassword } from './password';
import {
  checkEmail,
  checkId,
  checkLanguage,
  checkMetadata,
  checkPhone,
  checkUrlTemplate,
  checkMachineUsername,
  checkUsername,
  type MetadataEntry,
  optionalText,
  requireText,
} from './validate';
import { invalidateMachineUser } from '../oidc/m2m/machines';
import { usernameScopes } from './username-scope';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const userUniqueConstraints: UniqueConstraintErrors = {
  users_username_uq: () => alreadyExists('Errors.User.AlreadyExisting', 'the username is already taken'),
  users_pkey: () => alreadyExists('Errors.User.AlreadyExisting', 'a user with this id already exists'),
};

export interface AddHumanInput {
  id?: string;
  orgId: string;
  username: string;
  givenName: string;
  familyName: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: string;
  email: string;
  emailVerified: boolean;
  phone?: string;
  phoneVerified?: boolean;
  /** already hashed (argon2id, or an imported format checked by the caller) */
  passwordHash?: string;
  passwordChangeRequired?: boolean;
  state?: 'ACTIVE' | 'INITIAL' | 'INACTIVE';
}

/** Adds a human user. Checks of the org and of the input belong to the caller's command. */
export async function addHumanUser(work: UnitOfWork, input: AddHumanInput): Promise<{ id: string; createdAt: Date }> {
  const [added] = await addUsers(work, [{ human: input }]);
  return added;
}

export interface AddMachineInput {
  id?: string;
  orgId: string;
  username: string;
  name: string;
  description?: string;
  accessTokenType?: 'BEARER' | 'JWT';
}

export async function addMachineUser(
  work: UnitOfWork,
  input: AddMachineInput,
): Promise<{ id: string; createdAt: Date }> {
  const [added] = await addUsers(work, [{ machine: input }]);
  return added;
}

export type NewUser = { human: AddHumanInput; machine?: undefined } | { machine: AddMachineInput; human?: undefined };

/**
 * Adds users with ONE multi-row insert and their `user.human.added` / `user.machine.added` events
 * (flushed by execute() in one more statement): the create path of many concurrent requests costs
 * a few statements and one commit (see create-batch.ts).
 */
export async function addUsers(work: UnitOfWork, list: NewUser[]): Promise<{ id: string; createdAt: Date }[]> {
  const now = new Date();
  const rows: (typeof users.$inferInsert)[] = [];
  for (const u of list) {
    const id = (u.human ?? u.machine).id ?? newId();
    work.created('user', id);
    if (u.human) {
      const input = u.human;
      const displayName = input.displayName || `${input.givenName} ${input.familyName}`.trim() || input.username;
      rows.push({
        id,
        orgId: input.orgId,
        type: 'HUMAN',
        state: input.state ?? 'ACTIVE',
        username: input.username,
        givenName: input.givenName,
        familyName: input.familyName,
        nickName: input.nickName,
        displayName,
        preferredLanguage: input.preferredLanguage,
        gender: input.gender,
        email: input.email,
        emailVerified: input.emailVerified,
        phone: input.phone,
        phoneVerified: input.phoneVerified ?? false,
        passwordHash: input.passwordHash,
        passwordChangeRequired: input.passwordChangeRequired ?? false,
        passwordChangedAt: input.passwordHash ? now : null,
        createdAt: now,
        changedAt: now,
      });
      work.push({
        aggregateType: 'user',
        aggregateId: id,
        type: 'user.human.added',
        payload: humanAddedPayload({ ...input, displayName }),
        resourceOwner: input.orgId,
      });
    } else {
      const input = u.machine!;
      rows.push({
        id,
        orgId: input.orgId,
        type: 'MACHINE',
        username: input.username,
        machineName: input.name,
        description: input.description,
        accessTokenType: input.accessTokenType ?? 'BEARER',
        createdAt: now,
        changedAt: now,
      });
      work.push({
        aggregateType: 'user',
        aggregateId: id,
        type: 'user.machine.added',
        payload: machineAddedPayload(input),
        resourceOwner: input.orgId,
      });
    }
  }
  if (rows.length) {
    const scopes = await usernameScopes(work.tx, work.ctx.instanceId, rows as { type: string; orgId: string }[]);
    rows.forEach((r, i) => {
      r.usernameScope = scopes[i];
    });
    await work.tx.insert(users).values(rows);
  }
  return rows.map((r) => ({ id: r.id, createdAt: now }));
}

/** Issues a personal access token; only its SHA-256 is stored, the token is returned once. */
export async function addPersonalAccessToken(
  work: UnitOfWork,
  input: { userId: string; orgId: string; expiresAt?: Date },
): Promise<{ id: string; token: string; createdAt: Date }> {
  const id = newId();
  const token = randomToken(32, 'pcp_');
  const [row] = await work.tx
    .insert(personalAccessTokens)
    .values({ id, userId: input.userId, tokenHash: sha256Hex(token), expiresAt: input.expiresAt })
    .returning({ createdAt: personalAccessTokens.createdAt });
  work.push({
    aggregateType: 'user',
    aggregateId: input.userId,
    type: 'user.personal.access.token.added',
    payload: { tokenId: id, expirationDate: input.expiresAt?.toISOString() },
    resourceOwner: input.orgId,
  });
  return { id, token, createdAt: row.createdAt };
}

// ---------------------------------------------------------------------------------------------
// The v2 commands. Each checks its input and the caller's permission, then runs in execute().

export type EmailVerification = { send: { urlTemplate?: string } } | { return: true } | { verified: true };
export type PhoneVerification = { return: true } | { verified: true } | { none: true };

export interface CreateHumanInput {
  /** required; optional in the type because the command itself reports it missing */
  profile?: {
    givenName: string;
    familyName: string;
    nickName?: string;
    displayName?: string;
    preferredLanguage?: string;
    gender?: string;
  };
  /** required, like profile */
  email?: { email: string; verification: EmailVerification };
  phone?: { phone: string; verification: PhoneVerification };
  password?: PasswordInput;
  metadata?: MetadataEntry[];
}

export interface CreateUserInput {
  orgId: string;
  userId?: string;
  username?: string;
  human?: CreateHumanInput;
  machine?: { name: string; description?: string; accessTokenType?: 'BEARER' | 'JWT' };
  /**
   * Only for the v1 compatibility layer: v1 creates humans without a password or verified email in
   * state INITIAL. v2 users are always ACTIVE.
   */
  initialState?: boolean;
}

export interface CreateUserResult {
  id: string;
  createdAt: Date;
  emailCode?: string;
  phoneCode?: string;
}

/** Checks that the caller may add users to the organization; a foreign organization is NOT_FOUND. */
function authorizeOrg(ctx: Ctx, orgId: string, need: Permission): void {
  if (ctx.principal.canOrg(need, orgId)) return;
  if (ctx.principal.canOrg('org.read', orgId) || ctx.principal.canOrg('user.read', orgId)) {
    throw permissionDenied(`needs ${need} on the organization`);
  }
  throw notFound('Errors.Org.NotFound', 'organization not found');
}

/** CreateUser: one command for human and machine users. */
export async function createUser(ctx: Ctx, input: CreateUserInput): Promise<CreateUserResult> {
  const orgId = checkId('organization_id', input.orgId);
  const id = input.userId ? checkId('user_id', input.userId) : undefined;
  if (!input.human === !input.machine)
    throw invalidArgument('Errors.User.TypeMissing', 'exactly one of human or machine is required');
  authorizeOrg(ctx, orgId, 'user.write');

  if (input.machine) {
    const m = input.machine;
    const username = checkMachineUsername('username', input.username);
    const name = requireText('machine.name', m.name);
    const description = optionalText('machine.description', m.description, 500);
    return submitCreate(ctx, {
      user: { machine: { id, orgId, username, name, description, accessTokenType: m.accessTokenType } },
    });
  }

  const h = input.human!;
  if (!h.profile) throw invalidArgument('Errors.User.Profile.Missing', 'human.profile is required');
  if (!h.email) throw invalidArgument('Errors.User.Email.Missing', 'human.email is required');
  const profile = h.profile;
  const givenName = requireText('human.profile.given_name', profile.givenName);
  const familyName = requireText('human.profile.family_name', profile.familyName);
  const nickName = optionalText('human.profile.nick_name', profile.nickName);
  const displayName = optionalText('human.profile.display_name', profile.displayName);
  const preferredLanguage = checkLanguage('human.profile.preferred_language', profile.preferredLanguage);
  const email = checkEmail('human.email.email', h.email.email);
  const username = input.username !== undefined ? checkUsername('username', input.username) : email;
  const phone = h.phone ? checkPhone('human.phone.phone', h.phone.phone) : undefined;
  const emailVerification = h.email.verification;
  if ('send' in emailVerification)
    checkUrlTemplate('human.email.send_code.url_template', emailVerification.send.urlTemplate);
  if (h.metadata) checkMetadata('human.metadata', h.metadata);
  const password = h.password
    ? await preparePassword(
        ctx.db,
        ctx.instanceId,
        'hash' in h.password ? 'human.hashed_password' : 'human.password',
        h.password,
      )
    : undefined;
  const emailVerified = 'verified' in emailVerification;
  return submitCreate(ctx, {
    user: {
      human: {
        id,
        orgId,
        username,
        givenName,
        familyName,
        nickName,
        displayName,
        preferredLanguage,
        gender: profile.gender || undefined,
        email,
        emailVerified,
        phone,
        phoneVerified: !!h.phone && 'verified' in h.phone.verification,
        passwordHash: password?.hash,
        passwordChangeRequired: password?.changeRequired,
        state: input.initialState && !password && !emailVerified ? 'INITIAL' : 'ACTIVE',
      },
    },
    metadata: h.metadata,
    emailCode: emailVerified
      ? undefined
      : 'return' in emailVerification
        ? { return: true }
        : { send: emailVerification.send },
    phoneCode: !!h.phone && 'return' in h.phone.verification,
  });
}

/** A validated CreateUser, ready to be written (alone or in a batch with others). */
export interface PreparedCreate {
  user: NewUser;
  metadata?: MetadataEntry[];
  emailCode?: { send: { urlTemplate?: string } } | { return: true };
  phoneCode?: boolean;
}

/**
 * Writes validated creates in the caller's transaction: one org lookup, one multi-row insert, then
 * the per-user extras (metadata, codes). A create whose organization is missing or inactive gets
 * its error in place of a result and writes nothing.
 */
export async function applyCreates(
  work: UnitOfWork,
  creates: PreparedCreate[],
): Promise<(CreateUserResult | DomainError)[]> {
  const orgIds = [...new Set(creates.map((c) => (c.user.human ?? c.user.machine).orgId))];
  const found = await work.tx
    .select({ id: orgs.id, state: orgs.state, primaryDomain: orgs.primaryDomain })
    .from(orgs)
    .where(inArray(orgs.id, orgIds));
  const byId = new Map(found.map((o) => [o.id, o]));
  const results: (CreateUserResult | DomainError)[] = creates.map((c) => {
    const org = byId.get((c.user.human ?? c.user.machine).orgId);
    if (!org || org.state === 'REMOVED') return notFound('Errors.Org.NotFound', 'organization not found');
    if (org.state !== 'ACTIVE') return failedPrecondition('Errors.Org.NotActive', 'the organization is not active');
    return { id: '', createdAt: new Date(0) };
  });
  const shadowing = await foreignDomainErrors(
    work.tx,
    creates.map((c) => c.user.human ?? c.user.machine),
  );
  for (const [i, err] of shadowing.entries()) if (err && !(results[i] instanceof DomainError)) results[i] = err;
  const ok = creates.filter((_, i) => !(results[i] instanceof DomainError));
  const added = await addUsers(
    work,
    ok.map((c) => c.user),
  );
  let k = 0;
  const codeRequests: CodeRequest[] = [];
  const codeOwners: { result: CreateUserResult; field: 'emailCode' | 'phoneCode' }[] = [];
  for (let i = 0; i < creates.length; i++) {
    if (results[i] instanceof DomainError) continue;
    const c = creates[i];
    const result: CreateUserResult = { ...added[k++] };
    results[i] = result;
    const h = c.user.human;
    if (!h) continue;
    if (c.metadata?.length) await setMetadataRows(work, result.id, h.orgId, c.metadata);
    const user = {
      id: result.id,
      orgId: h.orgId,
      username: h.username,
      displayName: h.displayName || `${h.givenName} ${h.familyName}`,
      primaryDomain: byId.get(h.orgId)!.primaryDomain,
    } as UserWithOrg;
    if (c.emailCode) {
      codeRequests.push({ user, kind: 'EMAIL_VERIFICATION', delivery: c.emailCode, target: h.email });
      codeOwners.push({ result, field: 'emailCode' });
    }
    if (c.phoneCode) {
      codeRequests.push({ user, kind: 'PHONE_VERIFICATION', delivery: { return: true }, target: h.phone! });
      codeOwners.push({ result, field: 'phoneCode' });
    }
  }
  const codes = await issueCodes(work, codeRequests, { replace: false });
  codeOwners.forEach(({ result, field }, i) => {
    result[field] = codes[i];
  });
  return results;
}

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
  authorize(ctx, before, 'user.write');
  if (h?.password) authorize(ctx, before, 'user.credential.write');
  const password = h?.password
    ? await preparePassword(
        ctx.db,
        ctx.instanceId,
        'hash' in h.password ? 'human.hashed_password' : 'human.password',
        h.password,
      )
    : undefined;

  return execute(ctx, async (work) => {
    const user = await userForChange(work, userId, 'user.write');
    if (h && user.type !== 'HUMAN') throw invalidArgument('Errors.User.NotHuman', 'human: the user is a machine user');
    if (m && user.type !== 'MACHINE')
      throw invalidArgument('Errors.User.NotMachine', 'machine: the user is a human user');
    const push = (type: string, payload: Record<string, unknown>) =>
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
    if (user.type === 'MACHINE' && Object.keys(set).length) await invalidateMachineUser(work, userId);
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

function definedOnly<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
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
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.email.verified',
      payload: { email },
      resourceOwner: user.orgId,
    });
    return undefined;
  }
  const delivery = 'return' in verification ? ({ return: true } as const) : { send: verification.send };
  return issueCode(work, user, 'EMAIL_VERIFICATION', delivery, email);
}

/** Stores a prepared password hash and records the change. */
export async function storePassword(
  work: UnitOfWork,
  user: UserWithOrg,
  password: { hash: string; changeRequired: boolean },
): Promise<Date> {
  const now = new Date();
  await work.tx
    .update(users)
    .set({
      passwordHash: password.hash,
      passwordChangeRequired: password.changeRequired,
      passwordChangedAt: now,
      failedPasswordAttempts: 0,
      changedAt: now,
    })
    .where(eq(users.id, user.id));
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.password.changed',
    // No hash in the event: the hash lives in the projection only, so the audit log never carries it.
    payload: { changeRequired: password.changeRequired },
    resourceOwner: user.orgId,
  });
  return now;
}

interface StateChange {
  from: string[];
  to: string;
  event: string;
  wrongState: string;
}

const STATE_CHANGES = {
  deactivate: {
    from: ['ACTIVE', 'LOCKED', 'INITIAL'],
    to: 'INACTIVE',
    event: 'user.deactivated',
    wrongState: 'the user is already inactive',
  },
  reactivate: { from: ['INACTIVE'], to: 'ACTIVE', event: 'user.reactivated', wrongState: 'the user is not inactive' },
  lock: {
    from: ['ACTIVE', 'INITIAL'],
    to: 'LOCKED',
    event: 'user.locked',
    wrongState: 'only an active user can be locked',
  },
  unlock: { from: ['LOCKED'], to: 'ACTIVE', event: 'user.unlocked', wrongState: 'the user is not locked' },
} satisfies Record<string, StateChange>;

/** DeactivateUser, ReactivateUser, LockUser, UnlockUser: one transition each, FAILED_PRECONDITION otherwise. */
export async function changeUserState(ctx: Ctx, userId: string, change: keyof typeof STATE_CHANGES): Promise<Date> {
  const id = checkId('user_id', userId);
  const t: StateChange = STATE_CHANGES[change];
  return execute(ctx, async (work) => {
    const user = await userForChange(work, id, 'user.write');
    if (!t.from.includes(user.state)) throw failedPrecondition('Errors.User.State.Invalid', t.wrongState);
    const now = new Date();
    await work.tx
      .update(users)
      .set({ state: t.to, changedAt: now, ...(change === 'unlock' ? { failedPasswordAttempts: 0 } : {}) })
      .where(eq(users.id, id));
    work.push({ aggregateType: 'user', aggregateId: id, type: t.event, payload: {}, resourceOwner: user.orgId });
    await invalidateMachineUser(work, id);
    await invalidatePrincipal(work, id);
    return now;
  });
}

/** DeleteUser: state REMOVED, credentials gone, username free. Deleting again succeeds. */
export async function deleteUser(ctx: Ctx, userId: string): Promise<Date> {
  const id = checkId('user_id', userId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, id, 'user.delete', { includeRemoved: true });
    if (user.state === 'REMOVED') return user.changedAt;
    return removeUserRows(work, user);
  });
}

async function removeUserRows(work: UnitOfWork, user: { id: string; orgId: string; username: string }): Promise<Date> {
  const now = new Date();
  await work.tx.update(users).set({ state: 'REMOVED', secretHash: null, changedAt: now }).where(eq(users.id, user.id));
  const pats = await work.tx
    .delete(personalAccessTokens)
    .where(eq(personalAccessTokens.userId, user.id))
    .returning({ tokenHash: personalAccessTokens.tokenHash });
  for (const p of pats) await invalidatePat(work, p.tokenHash);
  await invalidatePrincipal(work, user.id);
  await work.tx.delete(userKeys).where(eq(userKeys.userId, user.id));
  await work.tx.delete(userCodes).where(eq(userCodes.userId, user.id));
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.removed',
    payload: { userName: user.username },
    resourceOwner: user.orgId,
  });
  await invalidateMachineUser(work, user.id);
  return now;
}

/**
 * For the organization commands: removes every user of an organization that is being deleted, in
 * the caller's transaction (one user.removed event each).
 */
export async function removeUsersOfOrg(work: UnitOfWork, orgId: string): Promise<number> {
  const rows = await work.tx
    .select({ id: users.id, orgId: users.orgId, username: users.username })
    .from(users)
    .where(and(eq(users.orgId, orgId), ne(users.state, 'REMOVED')));
  for (const u of rows) {
    await work.load('user', u.id);
    await removeUserRows(work, u);
  }
  return rows.length;
}

/** Adds or replaces metadata entries (values stored base64) with one user.metadata.set event each. */
export async function setMetadataRows(
  work: UnitOfWork,
  userId: string,
  orgId: string,
  entries: MetadataEntry[],
): Promise<Date> {
  const now = new Date();
  for (const e of entries) {
    const value = Buffer.from(e.value).toString('base64');
    await work.tx
      .insert(userMetadata)
      .values({ userId, key: e.key, value, createdAt: now, changedAt: now })
      .onConflictDoUpdate({ target: [userMetadata.userId, userMetadata.key], set: { value, changedAt: now } });
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.metadata.set',
      payload: { key: e.key, value },
      resourceOwner: orgId,
    });
  }
  return now;
}
