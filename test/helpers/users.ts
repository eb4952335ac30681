import { createUser } from '../../src/domain/user/create-user';
import { defaultOrgId, systemCtx } from './context';
import { unique } from './names';
import type { TestServer } from './server';

export const PASSWORD = 'Secret-Passw0rd!';

/** A human with a verified email and a password, ready to sign in (default organization unless `orgId`). */
export async function addUser(
  server: TestServer,
  opts: { orgId?: string; username?: string; password?: string; email?: string } = {},
) {
  const orgId = opts.orgId ?? (await defaultOrgId(server));
  const username = opts.username ?? unique('user');
  const { id } = await createUser(systemCtx(server), {
    orgId,
    username,
    human: {
      profile: { givenName: 'Ada', familyName: 'Lovelace' },
      email: { email: opts.email ?? `${username}@example.com`, verification: { verified: true } },
      password: { password: opts.password ?? PASSWORD, changeRequired: false },
    },
  });
  return { id, username, orgId, password: opts.password ?? PASSWORD };
}
