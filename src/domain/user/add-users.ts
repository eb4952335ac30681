import { humanAddedPayload, machineAddedPayload } from './event-payloads';
import { insertRows } from '../../db/insert-rows';
import { users } from '../../db/schema/index';
import { alreadyExists } from '../errors';
import { type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { usernameScopes } from './username-scope';

/** Writing new users: the rows, their username scope and their `added` events (no checks: the callers check). */
/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const userUniqueConstraints: UniqueConstraintErrors = {
  users_username_uq: () => alreadyExists('Errors.User.AlreadyExisting', 'the username is already taken'),
  users_pkey: () => alreadyExists('Errors.User.AlreadyExisting', 'a user with this id already exists'),
};

/** A human's profile, as every way of adding or changing a human names it. */
export interface HumanProfile {
  givenName: string;
  familyName: string;
  nickName?: string;
  displayName?: string;
  preferredLanguage?: string;
  gender?: string;
}

export interface AddHumanInput extends HumanProfile {
  id?: string;
  orgId: string;
  username: string;
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
export async function addUsers(
  work: UnitOfWork,
  list: NewUser[],
  /** the organizations' own domain policy (null: the instance's), when the caller read their rows already */
  orgPolicies?: ReadonlyMap<string, boolean | null>,
): Promise<{ id: string; createdAt: Date }[]> {
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
    const scopes = await usernameScopes(
      { db: work.tx, runtime: work.ctx.runtime },
      work.ctx.instanceId,
      rows as { type: string; orgId: string }[],
      orgPolicies,
    );
    rows.forEach((r, i) => {
      r.usernameScope = scopes[i];
    });
    await insertRows(work.tx, users, rows);
  }
  return rows.map((r) => ({ id: r.id, createdAt: now }));
}
