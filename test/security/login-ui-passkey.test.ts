import { type Client, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionService, UserVerificationRequirement } from '../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { defaultOrgId } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';
import { type Json, SoftAuthenticator } from '../helpers/webauthn';

/**
 * A custom login UI signs users in with their passkeys through SessionService: it asks for a WebAuthn
 * challenge and answers with the browser's assertion. The challenge options hold a property that is
 * undefined (`extensions`), which a Struct cannot carry: in JSON (Connect JSON, what a login UI in a
 * browser speaks) every challenge answered 500, in the binary encodings the options said
 * `extensions: null`. Options carry only what JSON would send, in every encoding.
 */
describe('a custom login UI signs in with a passkey over every encoding', () => {
  let server: TestServer;
  let origin: string;
  let loginUiToken: string;
  const transports = {
    'Connect binary': (baseUrl: string, interceptors: Interceptor[]) =>
      createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, interceptors }),
    'Connect JSON': (baseUrl: string, interceptors: Interceptor[]) =>
      createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false, interceptors }),
    gRPC: (baseUrl: string, interceptors: Interceptor[]) => createGrpcTransport({ baseUrl, interceptors }),
    'gRPC-web': (baseUrl: string, interceptors: Interceptor[]) =>
      createGrpcWebTransport({ baseUrl, httpVersion: '1.1', interceptors }),
    'gRPC-web JSON': (baseUrl: string, interceptors: Interceptor[]) =>
      createGrpcWebTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false, interceptors }),
  };

  beforeAll(async () => {
    server = await startTestServer();
    const [{ domain }] = await rows(server, 'select domain from instances');
    origin = `http://${domain}:${server.port}`;
    ({ token: loginUiToken } = await addMachineWithToken(server, await defaultOrgId(server), {
      roles: ['IAM_USER_MANAGER'],
    }));
  });
  afterAll(() => server?.stop());

  const sessionsOver = (name: keyof typeof transports): Client<typeof SessionService> => {
    const asLoginUi: Interceptor = (next) => (req) => {
      req.header.set('Authorization', `Bearer ${loginUiToken}`);
      return next(req);
    };
    return createClient(SessionService, transports[name](server.url, [asLoginUi]));
  };

  /** A user with a ready passkey on a software authenticator (registered as an administrator would). */
  async function userWithPasskey() {
    const users = server.client(UserService);
    const user = await addUser(server);
    const authenticator = new SoftAuthenticator(origin, { userVerified: true });
    const reg = await users.registerPasskey({ userId: user.id });
    await users.verifyPasskeyRegistration({
      userId: user.id,
      passkeyId: reg.passkeyId,
      publicKeyCredential: authenticator.create(reg.publicKeyCredentialCreationOptions!),
      passkeyName: 'laptop',
    });
    return { user, authenticator };
  }

  for (const name of Object.keys(transports) as (keyof typeof transports)[]) {
    it(`${name}: the challenge answers its options, and the assertion checks the passkey`, async () => {
      const { user, authenticator } = await userWithPasskey();
      const sessions = sessionsOver(name);
      const created = await sessions.createSession({
        checks: { user: { search: { case: 'userId', value: user.id } } },
        challenges: { webAuthN: { userVerificationRequirement: UserVerificationRequirement.REQUIRED } },
      });
      const options = created.challenges?.webAuthN?.publicKeyCredentialRequestOptions as Json;
      expect(options.challenge).toMatch(/^[\w-]{16,}$/);
      expect(options.userVerification).toBe('required');
      expect(options.allowCredentials).toHaveLength(1);
      expect(options).not.toHaveProperty('extensions');

      await sessions.setSession({
        sessionId: created.sessionId,
        sessionToken: created.sessionToken,
        checks: { webAuthN: { credentialAssertionData: authenticator.get(options) } },
      });
      const { session } = await sessions.getSession({
        sessionId: created.sessionId,
        sessionToken: created.sessionToken,
      });
      expect(session?.factors?.webAuthNCheckedAt).toBeDefined();
      expect(session?.factors?.webAuthNUserVerified).toBe(true);
    });
  }
});
