import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdministrator } from '../../../src/domain/administrator/manage';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addOidcApp, addProject } from '../../helpers/apps';
import { defaultOrgId, systemCtx } from '../../helpers/context';
import { basic, postFormJson } from '../../helpers/forms';
import { audScope, TOKEN_EXCHANGE, TT } from '../../helpers/jwt-grants';
import { addMachine } from '../../helpers/machines';

describe('token exchange without the instance setting impersonationAllowed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('refuses impersonation even with the permission; a plain exchange still works', async () => {
    const project = await addProject(server);
    const app = await addOidcApp(server, project, { grantTypes: ['TOKEN_EXCHANGE'] });
    const subject = await addMachine(server);
    const actor = await addMachine(server);
    await createAdministrator(systemCtx(server), {
      userId: actor.id,
      resource: { orgId: await defaultOrgId(server) },
      roles: ['ORG_IMPERSONATOR'],
    });
    const cc = async (m: { username: string; clientSecret: string }) =>
      (
        await postFormJson(
          server,
          '/oauth/v2/token',
          { grant_type: 'client_credentials', scope: audScope(project) },
          { authorization: basic(m.username, m.clientSecret) },
        )
      ).body.access_token as string;
    const auth = { authorization: basic(app.clientId, app.clientSecret!) };
    const subjectToken = await cc(subject);
    const refused = await postFormJson(
      server,
      '/oauth/v2/token',
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: subjectToken,
        subject_token_type: TT.access,
        actor_token: await cc(actor),
        actor_token_type: TT.access,
      },
      auth,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toMatch(/impersonation is not allowed/);
    const plain = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: TOKEN_EXCHANGE, subject_token: subjectToken, subject_token_type: TT.access },
      auth,
    );
    expect(plain.status).toBe(200);
  });
});
