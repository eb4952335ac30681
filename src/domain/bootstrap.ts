import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { systemPrincipal } from '../authz/principal';
import { hashPassword } from '../crypto/passwords/index';
import { randomPassword } from '../crypto/random';
import type { Deps } from '../deps';
import { DEFAULT_INSTANCE_SETTINGS, instances } from '../db/schema/index';
import { ConfigError } from '../config';
import { addAdministrator } from './administrator/commands';
import { execute } from './execute';
import { newId } from './ids';
import { DomainError } from './errors';
import { addInstance } from './instance/commands';
import { checkPasswordPolicy } from './instance/settings';
import { findInstance } from './instance/queries';
import { addOrg } from './org/commands';
import { addHumanUser, addMachineUser } from './user/add-users';
import { addPersonalAccessToken } from './user/personal-access-tokens';

export interface BootstrapOptions {
  externalUrl: string;
  orgName: string;
  adminPassword?: string;
  adminPatFile?: string;
}

export interface BootstrapResult {
  created: boolean;
  instanceId: string;
  /** Only on the start that created the instance. */
  adminPassword?: string;
  generatedPassword?: boolean;
  pat?: string;
  patFile?: string;
}

/**
 * First start: instance, first organization, human `admin` and an IAM_OWNER machine user with a
 * personal access token. Runs under an installation-wide lock and in one transaction, so two replicas
 * starting together create exactly one of each, and a crash leaves nothing half-made.
 */
export async function bootstrap(
  { database, runtime }: Pick<Deps, 'database' | 'runtime'>,
  opts: BootstrapOptions,
): Promise<BootstrapResult> {
  return database.withLock('bootstrap', async (db) => {
    const existing = await findInstance(db);
    if (existing) return { created: false, instanceId: existing.id };

    if (opts.adminPassword !== undefined) checkAdminPassword(opts.adminPassword);
    const instanceId = newId();
    const domain = new URL(opts.externalUrl).hostname;
    const password = opts.adminPassword ?? randomPassword();
    const passwordHash = await hashPassword(password);
    const ctx = { db, runtime, instanceId, principal: systemPrincipal(instanceId, 'bootstrap'), service: 'bootstrap' };
    const pat = await execute(ctx, async (work) => {
      await addInstance(work, { id: instanceId, name: 'Portcullis', domain });
      const org = await addOrg(work, { name: opts.orgName, instanceDomain: domain });
      await work.tx.update(instances).set({ defaultOrgId: org.id }).where(eq(instances.id, instanceId));
      const admin = await addHumanUser(work, {
        orgId: org.id,
        username: 'admin',
        givenName: 'Portcullis',
        familyName: 'Administrator',
        displayName: 'Portcullis Administrator',
        email: `admin@${org.primaryDomain}`,
        emailVerified: true,
        passwordHash,
        passwordChangeRequired: opts.adminPassword === undefined,
      });
      const machine = await addMachineUser(work, {
        orgId: org.id,
        username: 'admin-machine',
        name: 'Administrator (machine)',
        description: 'IAM_OWNER service user created on first start; its PAT is in the admin PAT file',
        accessTokenType: 'BEARER',
      });
      for (const userId of [admin.id, machine.id]) {
        await addAdministrator(work, {
          userId,
          resourceType: 'INSTANCE',
          resourceId: instanceId,
          resourceOwner: instanceId,
          roles: ['IAM_OWNER'],
        });
        await addAdministrator(work, {
          userId,
          resourceType: 'ORG',
          resourceId: org.id,
          resourceOwner: org.id,
          roles: ['ORG_OWNER'],
        });
      }
      const { token } = await addPersonalAccessToken(work, { userId: machine.id, orgId: org.id });
      return token;
    });
    if (opts.adminPatFile) writeSecretFile(opts.adminPatFile, `${pat}\n`);
    return {
      created: true,
      instanceId,
      adminPassword: password,
      generatedPassword: opts.adminPassword === undefined,
      pat,
      patFile: opts.adminPatFile,
    };
  });
}

/** Writes a file only its owner can read (0600), creating its folder. */
function writeSecretFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

/**
 * The first administrator's chosen password meets the password policy the new instance starts with
 * (a generated one always does): the start is refused, naming the rule, before anything is created.
 */
function checkAdminPassword(password: string): void {
  try {
    checkPasswordPolicy(DEFAULT_INSTANCE_SETTINGS, password, 'PORTCULLIS_ADMIN_PASSWORD');
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    throw new ConfigError(`${err.message}: choose another, or leave it unset to have one generated`);
  }
}
