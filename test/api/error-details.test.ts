import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { defaultOrgId } from '../helpers/context';

/** The error a call fails with (a call that succeeds fails the test). */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e) => ConnectError.from(e),
  );

/** Clients branch on google.rpc.ErrorInfo (reason = the Errors.… key, metadata.field) in every protocol. */
describe('structured error details', () => {
  let server: TestServer;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
  });
  afterAll(() => server?.stop());

  for (const protocol of ['connect', 'grpc'] as const) {
    it(`${protocol}: an invalid field and a taken username carry their key and field`, async () => {
      const users = server.client(UserService, { protocol });
      const bad = await failure(
        users.createUser({
          organizationId: orgId,
          username: `bad-${protocol}`,
          userType: {
            case: 'human',
            value: { profile: { givenName: 'A', familyName: 'B' }, email: { email: 'not an address' } },
          },
        }),
      );
      expect(bad.code).toBe(Code.InvalidArgument);
      const [info] = bad.findDetails(ErrorInfoSchema);
      expect(info).toMatchObject({
        reason: 'Errors.User.Invalid',
        domain: 'portcullis',
        metadata: { field: 'human.email.email' },
      });

      const name = `taken-${protocol}`;
      await users.createUser({ organizationId: orgId, username: name, userType: { case: 'machine', value: { name } } });
      const taken = await failure(
        users.createUser({ organizationId: orgId, username: name, userType: { case: 'machine', value: { name } } }),
      );
      expect(taken.code).toBe(Code.AlreadyExists);
      expect(taken.findDetails(ErrorInfoSchema)).toEqual([
        expect.objectContaining({ reason: 'Errors.User.AlreadyExisting', metadata: {} }),
      ]);

      const missing = await failure(users.getUserByID({ userId: 'no-such-user' }));
      expect(missing.findDetails(ErrorInfoSchema)[0]?.reason).toBe('Errors.User.NotFound');
    });
  }

  it('the v1 error body keeps its details[].id/message', async () => {
    const res = await server.fetch('/management/v1/users/no-such-user', { headers: { 'x-service-orgid': orgId } });
    const body = await res.json();
    expect(res.status).toBe(404);
    expect(body.details).toEqual([{ id: expect.any(String), message: 'Errors.User.NotFound' }]);
  });
});
