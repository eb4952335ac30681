import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenType, UserState } from '../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { defaultOrgId } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';

const profile = { givenName: 'Ada', familyName: 'Lovelace' };

describe('CreateUser', () => {
  let server: TestServer;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
  });
  afterAll(() => server?.stop());

  it('creates an active human, username defaulting to email, with a returned email code (Connect JSON)', async () => {
    const users = server.client(UserService);
    const res = await users.createUser({
      organizationId: orgId,
      userType: {
        case: 'human',
        value: { profile, email: { email: 'ada@example.com', verification: { case: 'returnCode', value: {} } } },
      },
    });
    expect(res.id).toMatch(/^\d+$/);
    expect(res.emailCode).toMatch(/^[A-Z0-9]{8}$/);
    const { user } = await users.getUserByID({ userId: res.id });
    expect(user?.state).toBe(UserState.ACTIVE);
    expect(user?.username).toBe('ada@example.com');
    expect(user?.preferredLoginName).toMatch(/^ada@example\.com@.+\.localhost$/);
    expect(user?.loginNames).toContain(user?.preferredLoginName);
    expect(user?.type.case).toBe('human');
    if (user?.type.case === 'human') {
      expect(user.type.value.profile?.displayName).toBe('Ada Lovelace');
      expect(user.type.value.email).toMatchObject({ email: 'ada@example.com', isVerified: false });
      expect(user.type.value.passwordChanged).toBeUndefined();
    }
  });

  it('records user.human.added: displayName, email, userName, password hash, editor and resource owner', async () => {
    const users = server.client(UserService);
    const res = await users.createUser({
      organizationId: orgId,
      username: 'grace',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Grace', familyName: 'Hopper' },
          email: { email: 'grace@example.com', verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password: 'Secret-Passw0rd', changeRequired: false } },
        },
      },
    });
    expect(res.emailCode).toBeUndefined();
    const evs = await eventsOf(server, res.id);
    const added = evs.find((e) => e.eventType === 'user.human.added')!;
    expect(added.payload).toMatchObject({ displayName: 'Grace Hopper', email: 'grace@example.com', userName: 'grace' });
    expect(String(added.payload.passwordHash)).toMatch(/^\$argon2id\$/);
    expect(added.resourceOwner).toBe(orgId);
    expect(added.editorService).toBe('portcullis.user.v2.UserService/CreateUser');
    const [admin] = await server.app.database.db.query.users.findMany({
      where: (u, { eq }) => eq(u.username, 'admin-machine'),
    });
    expect(added.editorUserId).toBe(admin.id);
    expect(evs.some((e) => e.eventType === 'user.human.email.code.added')).toBe(false);
  });

  it('sends the email code through the outbox by default', async () => {
    const users = server.client(UserService);
    const res = await users.createUser({
      organizationId: orgId,
      userType: {
        case: 'human',
        value: {
          profile,
          email: {
            email: 'outbox@example.com',
            verification: {
              case: 'sendCode',
              value: { urlTemplate: 'https://app.example.com/verify?code={{.Code}}&user={{.UserID}}' },
            },
          },
        },
      },
    });
    expect(res.emailCode).toBeUndefined();
    const rows = await server.app.database.db.query.notifications.findMany({
      where: (n, { eq }) => eq(n.userId, res.id),
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'EMAIL_VERIFICATION',
      recipient: 'outbox@example.com',
      subject: 'Verify your email address',
    });
    expect(rows[0].body).toContain(`https://app.example.com/verify?code=`);
    expect(rows[0].body).toContain(`user=${res.id}`);
    expect((await eventsOf(server, res.id, 'user.human.email.code.added')).length).toBe(1);
  });

  it('creates a machine user over gRPC (h2c)', async () => {
    const users = server.client(UserService, { protocol: 'grpc' });
    const res = await users.createUser({
      organizationId: orgId,
      username: 'build-bot',
      userType: {
        case: 'machine',
        value: { name: 'Build bot', description: 'CI', accessTokenType: AccessTokenType.JWT },
      },
    });
    const { user } = await users.getUserByID({ userId: res.id });
    expect(user?.state).toBe(UserState.ACTIVE);
    expect(user?.type).toMatchObject({
      case: 'machine',
      value: { name: 'Build bot', description: 'CI', hasSecret: false, accessTokenType: AccessTokenType.JWT },
    });
    const evs = await eventsOf(server, res.id);
    expect(evs.map((e) => e.eventType)).toEqual(['user.machine.added']);
  });

  it('takes a caller-chosen id, metadata and a returned phone code', async () => {
    const users = server.client(UserService);
    const res = await users.createUser({
      organizationId: orgId,
      userId: 'my-own-id',
      userType: {
        case: 'human',
        value: {
          profile,
          email: { email: 'meta@example.com', verification: { case: 'isVerified', value: true } },
          phone: { phone: '+41 79 000 00 00', verification: { case: 'returnCode', value: {} } },
          metadata: [{ key: 'tier', value: new TextEncoder().encode('gold') }],
        },
      },
    });
    expect(res.id).toBe('my-own-id');
    expect(res.phoneCode).toMatch(/^[A-Z0-9]{8}$/);
    const md = await users.listUserMetadata({ userId: 'my-own-id' });
    expect(md.metadata.map((m) => [m.key, new TextDecoder().decode(m.value)])).toEqual([['tier', 'gold']]);
  });

  it('accepts a supported hashed_password and rejects an unsupported format naming the problem', async () => {
    const users = server.client(UserService);
    const ok = await users.createUser({
      organizationId: orgId,
      userType: {
        case: 'human',
        value: {
          profile,
          email: { email: 'hashed@example.com', verification: { case: 'isVerified', value: true } },
          passwordType: {
            case: 'hashedPassword',
            value: {
              hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0dGVzdHRlcw',
            },
          },
        },
      },
    });
    expect(ok.id).toBeTruthy();
    const err = await users
      .createUser({
        organizationId: orgId,
        userType: {
          case: 'human',
          value: {
            profile,
            email: { email: 'badhash@example.com', verification: { case: 'isVerified', value: true } },
            passwordType: { case: 'hashedPassword', value: { hash: '{MD5}not-a-supported-hash' } },
          },
        },
      })
      .catch((e) => e);
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toMatch(/human\.hashed_password\.hash: .*(unsupported|format)/);
  });

  it('validates every field with INVALID_ARGUMENT naming it', async () => {
    const users = server.client(UserService);
    const human = (v: object) => ({
      organizationId: orgId,
      userType: { case: 'human' as const, value: { profile, email: { email: 'v@example.com' }, ...v } },
    });
    const cases: [object, RegExp][] = [
      [
        { organizationId: '', userType: { case: 'machine', value: { name: 'x' } }, username: 'x' },
        /organization_id is required/,
      ],
      [{ organizationId: orgId }, /exactly one of human or machine/],
      [human({ profile: { givenName: '', familyName: 'L' } }), /human\.profile\.given_name is required/],
      [
        human({ profile: { givenName: 'A'.repeat(201), familyName: 'L' } }),
        /human\.profile\.given_name must be at most 200/,
      ],
      [human({ email: { email: 'not-an-email' } }), /human\.email\.email is not a valid email address/],
      [human({ email: { email: 'a b@example.com' } }), /human\.email\.email is not a valid email address/],
      [human({ email: { email: 'a@-bad-.example' } }), /human\.email\.email is not a valid email address/],
      [human({ email: undefined }), /human\.email is required/],
      [human({ phone: { phone: 'call me' } }), /human\.phone\.phone is not a valid phone number/],
      [
        human({ passwordType: { case: 'password', value: { password: 'short' } } }),
        /human\.password\.password needs at least 8 characters/,
      ],
      [human({ profile: { ...profile, preferredLanguage: 'not a language' } }), /preferred_language/],
      [{ organizationId: orgId, userType: { case: 'machine', value: { name: 'x' } } }, /username is required/],
      [
        { organizationId: orgId, username: 'has space', userType: { case: 'machine', value: { name: 'x' } } },
        /username must not contain whitespace/,
      ],
      [
        { organizationId: orgId, username: 'm1', userType: { case: 'machine', value: { name: '' } } },
        /machine\.name is required/,
      ],
    ];
    for (const [req, message] of cases) {
      const err = await users.createUser(req as never).catch((e) => e);
      expect(err.code, String(message)).toBe(Code.InvalidArgument);
      expect(err.rawMessage).toMatch(message);
    }
  });

  it('accepts addresses whose domain has no dot (RFC 5321), as real exports have them', async () => {
    const users = server.client(UserService);
    const { id } = await users.createUser({
      organizationId: orgId,
      username: 'local-admin',
      userType: { case: 'human', value: { profile, email: { email: 'admin@localhost' } } },
    });
    const { user } = await users.getUserByID({ userId: id });
    expect(user?.type.case === 'human' && user.type.value.email?.email).toBe('admin@localhost');
    const org = await server.fetch('/portcullis.org.v2.OrganizationService/CreateOrganization', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Dotless',
        admins: [{ human: { profile: { givenName: 'A', familyName: 'B' }, email: { email: 'user@localhost' } } }],
      }),
    });
    expect(org.status).toBe(200);
  });

  it('rejects a taken username with ALREADY_EXISTS and leaves no event', async () => {
    const users = server.client(UserService);
    await users.createUser({
      organizationId: orgId,
      username: 'robo',
      userType: { case: 'machine', value: { name: 'robo' } },
    });
    const before = await server.app.database.db.query.events.findMany();
    const err = await users
      .createUser({
        organizationId: orgId,
        userId: 'dup-user',
        username: 'ROBO',
        userType: { case: 'machine', value: { name: 'dup' } },
      })
      .catch((e) => e);
    expect(err.code).toBe(Code.AlreadyExists);
    expect(await eventsOf(server, 'dup-user')).toHaveLength(0);
    expect((await server.app.database.db.query.events.findMany()).length).toBe(before.length);
  });

  it('answers each of many concurrent creates on its own: one taken username fails alone', async () => {
    const users = server.client(UserService);
    const names = Array.from({ length: 20 }, (_, i) => `burst-${i}`);
    names[7] = 'robo';
    const results = await Promise.allSettled(
      names.map((username, i) =>
        users.createUser({
          organizationId: orgId,
          userId: `burst-id-${i}`,
          username,
          userType: { case: 'machine', value: { name: username } },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(19);
    expect(results[7]).toMatchObject({ status: 'rejected', reason: { code: Code.AlreadyExists } });
    expect(await eventsOf(server, 'burst-id-7')).toHaveLength(0);
    for (const i of [0, 8, 19])
      expect((await eventsOf(server, `burst-id-${i}`)).map((e) => e.eventType)).toEqual(['user.machine.added']);
  });

  it('answers NOT_FOUND for an unknown organization', async () => {
    const err = await server
      .client(UserService)
      .createUser({ organizationId: '12345', username: 'nobody', userType: { case: 'machine', value: { name: 'n' } } })
      .catch((e) => e);
    expect(err.code).toBe(Code.NotFound);
  });
});
