import { Writable } from 'node:stream';
import type { JsonObject } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { errorInterceptor } from '../../src/api/interceptors/errors';
import { invalidArgument } from '../../src/domain/errors';

const failure = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e) => ConnectError.from(e),
  );

/**
 * Every 500 of the API is logged with its cause, also when it happens after the handler returned (Connect
 * encoding the answer): the operator learns why, the client learns only that it failed.
 */
describe('server faults are logged with their cause', () => {
  const logged: Record<string, any>[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        logged.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const sessions = createClient(
    SessionService,
    createRouterTransport(
      ({ service }) =>
        service(SessionService, {
          getSession() {
            throw new Error('connection to db-primary.internal:5432 refused');
          },
          listSessions() {
            throw invalidArgument('Errors.Session.Query', 'a client mistake');
          },
          // an answer Connect JSON cannot encode: a Struct holding undefined
          setSession: () => ({
            challenges: {
              webAuthN: { publicKeyCredentialRequestOptions: { extensions: undefined } as unknown as JsonObject },
            },
          }),
        }),
      { router: { interceptors: [errorInterceptor(log)] }, transport: { useBinaryFormat: false } },
    ),
  );
  const lastLogged = () => logged.at(-1);

  it("a handler's unexpected error: internal error for the client, the cause in the log", async () => {
    const err = await failure(sessions.getSession({ sessionId: 's' }));
    expect(err.code).toBe(Code.Internal);
    expect(err.rawMessage).toBe('internal error');
    expect(lastLogged()).toMatchObject({
      level: 50,
      procedure: '/portcullis.session.v2.SessionService/GetSession',
      err: { message: 'connection to db-primary.internal:5432 refused' },
    });
  });

  it('an answer that cannot be encoded is logged with its cause', async () => {
    const before = logged.length;
    const err = await failure(sessions.setSession({ sessionId: 's' }));
    expect(err.code).toBe(Code.Internal);
    expect(logged.length).toBe(before + 1);
    expect(lastLogged()).toMatchObject({
      level: 50,
      procedure: '/portcullis.session.v2.SessionService/SetSession',
      err: { message: expect.stringContaining('google.protobuf.Value must have a value') },
    });
  });

  it("a client's mistake is no server fault: nothing is logged", async () => {
    const before = logged.length;
    expect((await failure(sessions.listSessions({}))).code).toBe(Code.InvalidArgument);
    expect(logged.length).toBe(before);
  });
});
