import { and, eq, ne } from 'drizzle-orm';
import { systemPrincipal } from '../authz/principal';
import { randomToken } from '../crypto/random';
import type { Deps } from '../deps';
import { administrators, applications, projects, users } from '../db/schema/index';
import { addAdministrator } from './administrator/commands';
import type { Ctx } from './context';
import { failedPrecondition, invalidArgument, notFound } from './errors';
import { execute, type UnitOfWork } from './execute';
import { lockInstance } from './instance/lock';
import { findInstance } from './instance/queries';
import { CONSOLE_APP_ID, SYSTEM_PROJECT_ID } from './instance/system-resources';
import { readUser } from './user/access';
import { addMachineUser } from './user/add-users';
import { isLoginNameOrUsername } from './user/login-names';
import { preparePassword, storePassword } from './user/password';
import { addPersonalAccessToken } from './user/personal-access-tokens';

// `portcullis admin recover`: gives the instance back to someone with access to its database after
// every owner lost access. Each step is a command like any other, so the event log shows who came
// back and how (the events' editor is the service "recover").

/** The database to recover and the runtime its commands run with (the command's own, not a server's). */
type Recovering = Pick<Deps, 'database' | 'runtime'>;

async function recoveryCtx({ database, runtime }: Recovering): Promise<Ctx & { defaultOrgId: string }> {
  const instance = await findInstance(database.db);
  if (!instance?.defaultOrgId)
    throw failedPrecondition('Errors.Instance.NotFound', 'the database holds no instance yet: start portcullis once');
  const ctx = {
    db: database.db,
    runtime,
    instanceId: instance.id,
    principal: systemPrincipal(instance.id, 'recover'),
    service: 'recover',
  };
  return { ...ctx, defaultOrgId: instance.defaultOrgId };
}

/** Grants IAM_OWNER on the instance, keeping the user's other instance roles. */
async function grantOwner(work: UnitOfWork, userId: string): Promise<void> {
  await lockInstance(work);
  const { instanceId } = work.ctx;
  const [held] = await work.tx
    .select({ roles: administrators.roles })
    .from(administrators)
    .where(
      and(
        eq(administrators.userId, userId),
        eq(administrators.resourceType, 'INSTANCE'),
        eq(administrators.resourceId, instanceId),
      ),
    );
  if (!held) {
    await addAdministrator(work, {
      userId,
      resourceType: 'INSTANCE',
      resourceId: instanceId,
      resourceOwner: instanceId,
      roles: ['IAM_OWNER'],
    });
    return;
  }
  if (held.roles.includes('IAM_OWNER')) return;
  const roles = [...held.roles, 'IAM_OWNER'];
  await work.tx
    .update(administrators)
    .set({ roles, changedAt: new Date() })
    .where(
      and(
        eq(administrators.userId, userId),
        eq(administrators.resourceType, 'INSTANCE'),
        eq(administrators.resourceId, instanceId),
      ),
    );
  work.push({
    aggregateType: 'instance',
    aggregateId: instanceId,
    type: 'administrator.changed',
    payload: { userId, roles },
    resourceOwner: instanceId,
  });
}

/** A new machine user of the default organization holding IAM_OWNER, and a personal access token for it. */
export async function recoverWithMachine(
  target: Recovering,
): Promise<{ userId: string; username: string; pat: string }> {
  const ctx = await recoveryCtx(target);
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const username = `admin-recovery-${stamp}-${randomToken(3).toLowerCase()}`;
  return execute(ctx, async (work) => {
    const machine = await addMachineUser(work, {
      orgId: ctx.defaultOrgId,
      username,
      name: 'Administrator (recovery)',
      description: 'IAM_OWNER service user created by `portcullis admin recover`; its PAT is in the file it named',
      accessTokenType: 'BEARER',
    });
    await grantOwner(work, machine.id);
    const { token } = await addPersonalAccessToken(work, { userId: machine.id, orgId: ctx.defaultOrgId });
    return { userId: machine.id, username, pat: token };
  });
}

/**
 * A human administrator signs in again: a new password that must be changed at the next sign-in, the
 * user active again (unlocked or reactivated), and IAM_OWNER on the instance.
 */
export async function recoverHuman(
  target: Recovering,
  input: { loginName: string; password: string },
): Promise<{ userId: string; username: string }> {
  const ctx = await recoveryCtx(target);
  const found = await ctx.db
    .select({ id: users.id, type: users.type })
    .from(users)
    .where(and(isLoginNameOrUsername(input.loginName), ne(users.state, 'REMOVED')));
  if (found.length === 0) throw notFound('Errors.User.NotFound', `no user has the login name "${input.loginName}"`);
  if (found.length > 1)
    throw invalidArgument(
      'Errors.User.Ambiguous',
      `several users answer to "${input.loginName}": give the full login name`,
    );
  if (found[0].type !== 'HUMAN')
    throw failedPrecondition('Errors.User.NotHuman', `"${input.loginName}" is a machine user: it has no password`);
  const password = await preparePassword(
    ctx,
    ctx.instanceId,
    'password',
    { password: input.password, changeRequired: true },
    'the password',
  );
  return execute(ctx, async (work) => {
    await work.load('user', found[0].id);
    const user = await readUser(work.tx, found[0].id);
    if (!user) throw notFound('Errors.User.NotFound', `no user has the login name "${input.loginName}"`);
    await storePassword(work, user, password);
    const event =
      user.state === 'LOCKED' ? 'user.unlocked' : user.state === 'INACTIVE' ? 'user.reactivated' : undefined;
    if (event) {
      await work.tx
        .update(users)
        .set({ state: 'ACTIVE', failedPasswordAttempts: 0, failedOtpAttempts: 0, changedAt: new Date() })
        .where(eq(users.id, user.id));
      work.push({ aggregateType: 'user', aggregateId: user.id, type: event, payload: {}, resourceOwner: user.orgId });
    }
    await grantOwner(work, user.id);
    return { userId: user.id, username: user.username };
  });
}

/**
 * Brings back the system project and the console application where they were removed (by an earlier
 * version that let the API delete them, or in the database itself). A console application that is
 * missing altogether is created by ensureConsoleClient afterwards, as on every start. Returns what it restored.
 */
export async function restoreSystemResources(target: Recovering): Promise<string[]> {
  const ctx = await recoveryCtx(target);
  return execute(ctx, async (work) => {
    const restored: string[] = [];
    const [project] = await work.tx.select().from(projects).where(eq(projects.id, SYSTEM_PROJECT_ID));
    // The project's events stay in the log when its row is gone: the aggregate continues, it is not new.
    await work.load('project', SYSTEM_PROJECT_ID);
    if (!project) {
      const flags = { projectRoleAssertion: false, authorizationRequired: false, projectAccessRequired: false };
      await work.tx
        .insert(projects)
        .values({ id: SYSTEM_PROJECT_ID, orgId: ctx.defaultOrgId, name: 'Portcullis', ...flags });
      work.push({
        aggregateType: 'project',
        aggregateId: SYSTEM_PROJECT_ID,
        type: 'project.added',
        payload: { name: 'Portcullis', ...flags },
        resourceOwner: ctx.defaultOrgId,
      });
      restored.push('the system project (created again)');
    } else if (project.state !== 'ACTIVE') {
      await work.tx
        .update(projects)
        .set({ state: 'ACTIVE', changedAt: new Date() })
        .where(eq(projects.id, SYSTEM_PROJECT_ID));
      work.push({
        aggregateType: 'project',
        aggregateId: SYSTEM_PROJECT_ID,
        type: 'project.reactivated',
        payload: {},
        resourceOwner: project.orgId,
      });
      restored.push(`the system project (was ${project.state.toLowerCase()})`);
    }
    const [app] = await work.tx.select().from(applications).where(eq(applications.id, CONSOLE_APP_ID));
    if (app && app.state !== 'ACTIVE') {
      await work.load('project', app.projectId);
      await work.tx
        .update(applications)
        .set({ state: 'ACTIVE', changedAt: new Date() })
        .where(eq(applications.id, CONSOLE_APP_ID));
      work.push({
        aggregateType: 'project',
        aggregateId: app.projectId,
        type: 'project.application.reactivated',
        payload: { appId: CONSOLE_APP_ID },
        resourceOwner: app.orgId,
      });
      restored.push(`the console application (was ${app.state.toLowerCase()})`);
    }
    return restored;
  });
}
