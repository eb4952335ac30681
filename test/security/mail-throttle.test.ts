import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { defaultOrgId } from '../helpers/context';
import { addRelyingParty, codeFlowTokens } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('outgoing mail cannot be abused', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('a user resending its own verification code is throttled with RESOURCE_EXHAUSTED and Retry-After', async () => {
    const config = await addRelyingParty(server, { basicAuth: true, apiClient: true });
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid urn:service:iam:org:project:id:api:aud',
    });
    const self = server.client(UserService, { token: tokens.access_token });
    await self.setEmail({
      userId: user.id,
      email: 'me-again@example.com',
      verification: { case: 'sendCode', value: {} },
    });
    let refused: ConnectError | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      refused = await self.resendEmailCode({ userId: user.id, verification: { case: 'sendCode', value: {} } }).then(
        () => undefined,
        (e: ConnectError) => e,
      );
    }
    expect(refused?.code).toBe(Code.ResourceExhausted);
    expect(Number(refused?.metadata.get('retry-after'))).toBeGreaterThan(0);
    // over plain HTTP the same call is a 429 with Retry-After
    const res = await fetch(`${server.url}/portcullis.user.v2.UserService/ResendEmailCode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify({ userId: user.id, sendCode: {} }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('many accounts created with one address cannot flood that inbox', async () => {
    const orgId = await defaultOrgId(server);
    const users = server.client(UserService);
    const create = (i: number) =>
      users.createUser({
        organizationId: orgId,
        username: `flood-${i}`,
        userType: {
          case: 'human',
          value: { profile: { givenName: 'F', familyName: 'L' }, email: { email: 'Inbox@Victim.example' } },
        },
      });
    const results = [];
    for (let i = 0; i < 12; i++)
      results.push(
        await create(i).then(
          () => 'ok',
          (e: ConnectError) => e.code,
        ),
      );
    expect(results.filter((r) => r === 'ok').length).toBeLessThanOrEqual(10);
    expect(results).toContain(Code.ResourceExhausted);
  });
});
