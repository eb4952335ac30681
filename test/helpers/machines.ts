import * as client from 'openid-client';
import { addAdministrator } from '../../src/domain/administrator/commands';
import { execute } from '../../src/domain/execute';
import { addMachineUser } from '../../src/domain/user/add-users';
import { addPersonalAccessToken } from '../../src/domain/user/personal-access-tokens';
import { createUser } from '../../src/domain/user/create-user';
import { addKey, addSecret } from '../../src/domain/user/credentials';
import { defaultOrgId, systemCtx } from './context';
import { unique } from './names';
import type { TestServer } from './server';

export interface Membership {
  resourceType: 'INSTANCE' | 'ORG' | 'PROJECT';
  resourceId: string;
  resourceOwner: string;
  roles: string[];
}

/**
 * A machine user of `orgId` with a personal access token, to call the API as. `roles` are held on
 * that organization (IAM_* roles on the instance); `membership` names any other resource. Without
 * either the user has no roles: give it memberships through AdministratorService to test a role.
 */
export async function addMachineWithToken(
  server: TestServer,
  orgId: string,
  opts: { username?: string; name?: string; roles?: string[]; membership?: Membership } = {},
): Promise<{ userId: string; token: string }> {
  const username = opts.username ?? unique(`${(opts.name ?? 'bot').replace(/[^a-z0-9]+/gi, '-')}-`);
  const { instanceId } = server.app.deps;
  const roles = opts.roles ?? [];
  const instanceRoles = roles.filter((r) => r.startsWith('IAM_'));
  const orgRoles = roles.filter((r) => !r.startsWith('IAM_'));
  const memberships: Membership[] = [
    ...(instanceRoles.length
      ? [{ resourceType: 'INSTANCE' as const, resourceId: instanceId, resourceOwner: instanceId, roles: instanceRoles }]
      : []),
    ...(orgRoles.length
      ? [{ resourceType: 'ORG' as const, resourceId: orgId, resourceOwner: orgId, roles: orgRoles }]
      : []),
    ...(opts.membership ? [opts.membership] : []),
  ];
  return execute(systemCtx(server), async (work) => {
    const { id } = await addMachineUser(work, { orgId, username, name: opts.name ?? username });
    for (const m of memberships) await addAdministrator(work, { userId: id, ...m });
    const { token } = await addPersonalAccessToken(work, { userId: id, orgId });
    return { userId: id, token };
  });
}

/** A machine user that signs in itself: a client secret and a server-generated key (key file). */
export async function addMachine(
  server: TestServer,
  opts: { accessTokenType?: 'BEARER' | 'JWT'; orgId?: string; keyExpiresAt?: Date } = {},
) {
  const ctx = systemCtx(server);
  const username = unique('svc');
  const { id } = await createUser(ctx, {
    orgId: opts.orgId ?? (await defaultOrgId(server)),
    username,
    machine: { name: username, accessTokenType: opts.accessTokenType ?? 'BEARER' },
  });
  const { clientSecret } = await addSecret(ctx, { userId: id });
  const { keyId, keyFile } = await addKey(ctx, { userId: id, expiresAt: opts.keyExpiresAt });
  return { id, username, clientSecret, keyId, privateKey: keyFile!.key };
}

/** openid-client configuration of a machine user (client id = username). */
export async function machineConfig(
  server: TestServer,
  m: { username: string; clientSecret: string },
  auth: 'basic' | 'post' = 'basic',
) {
  return client.discovery(
    new URL(server.url),
    m.username,
    m.clientSecret,
    auth === 'basic' ? client.ClientSecretBasic(m.clientSecret) : client.ClientSecretPost(m.clientSecret),
    { execute: [client.allowInsecureRequests] },
  );
}
