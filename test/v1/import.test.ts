import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/crypto/passwords/index';
import { startTestServer, type TestServer } from '../helpers/server';
import { get, human, post } from './helpers';
import { defaultOrgId } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';

const uniq = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

async function humanEvents(server: TestServer, userId: string) {
  const { body } = await post(server, '/admin/v1/events/_search', {
    aggregateId: userId,
    eventTypes: ['user.human.added'],
  });
  return body.events as any[];
}

describe('POST /admin/v1/import', () => {
  let server: TestServer;
  let argonHash: string;
  beforeAll(async () => {
    server = await startTestServer();
    argonHash = await hashPassword('Imported-Passw0rd');
  });
  afterAll(() => server?.stop());

  it('imports a small body and answers with the import result shape', async () => {
    const id = uniq();
    const body = {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Acme ${id}` },
            humanUsers: [
              human(`h1${id}`, `ada${id}`, { hashedPassword: { value: argonHash } }),
              human(`h2${id}`, `bob${id}`, { password: 'Plain-Passw0rd', passwordChangeRequired: true }),
            ],
            machineUsers: [{ userId: `m1${id}`, user: { userName: `robot${id}`, name: 'Robot' } }],
          },
        ],
      },
      timeout: '5m0s',
    };
    const res = await post(server, '/admin/v1/import', body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: {
        orgs: [
          {
            orgId: `o${id}`,
            humanUserIds: [`h1${id}`, `h2${id}`],
            machineUserIds: [`m1${id}`],
            userMetadata: [],
            projectIds: [],
            projectRoles: [],
            oidcAppIds: [],
            apiAppIds: [],
            userGrants: [],
            orgMembers: [],
          },
        ],
      },
      errors: [],
    });
    const [added] = await humanEvents(server, `h1${id}`);
    expect(added.aggregate.resourceOwner).toBe(`o${id}`);
    expect(added.payload).toMatchObject({
      userName: `ada${id}`,
      displayName: `Ada ada${id}`,
      email: `ada${id}@example.com`,
      passwordHash: argonHash,
    });
    const [plain] = await humanEvents(server, `h2${id}`);
    expect(plain.payload.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it("a NUL or control character in a username, email or name is that user's error, not a failed request", async () => {
    const id = uniq();
    const res = await post(server, '/admin/v1/import', {
      timeout: '1500ms',
      dataOrgs: {
        orgs: [
          {
            orgId: `n${id}`,
            org: { name: `Nul ${id}` },
            humanUsers: [
              human(`a${id}`, `nul\u0000${id}`),
              human(`b${id}`, `ok${id}`, { email: { email: `bad\u0000${id}@example.com`, isEmailVerified: true } }),
              human(`c${id}`, `cr${id}`, { profile: { firstName: 'A\r\nB', lastName: 'C' } }),
              human(`d${id}`, `fine${id}`),
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors.map((e: { id: string }) => e.id).sort()).toEqual([`a${id}`, `b${id}`, `c${id}`].sort());
    expect(await humanEvents(server, `d${id}`)).toHaveLength(1);
  });

  it('accepts every Go duration unit in timeout', async () => {
    for (const timeout of ['90s', '1500ms', '2m', '1h', '250000us', '250000µs', '5000000000ns']) {
      const res = await post(server, '/admin/v1/import', { timeout, dataOrgs: { orgs: [] } });
      expect(res.status, timeout).toBe(200);
    }
  });

  it('keeps awkward characters of names and hashes intact', async () => {
    const id = uniq();
    const displayName = 'Tab\there, new\nline, back\\slash, "quotes", ünïcødé \\N';
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Odd ${id}` },
            humanUsers: [human(`h${id}`, `odd${id}`, { profile: { firstName: 'A', lastName: 'B', displayName } })],
          },
        ],
      },
    });
    expect(res.body.errors).toEqual([]);
    const [added] = await humanEvents(server, `h${id}`);
    expect(added.payload.displayName).toBe(displayName);
  });

  it('imports what the migration tool writes: TOTP secret, inactive state, metadata', async () => {
    const id = uniq();
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Tool ${id}` },
            humanUsers: [
              {
                ...human(`h${id}`, `tool${id}`, { otpCode: 'JBSWY3DPEHPK3PXPJBSWY3DP' }),
                state: 'USER_STATE_INACTIVE',
              },
              human(`b${id}`, `badotp${id}`, { otpCode: 'not base32!' }),
            ],
            userMetadata: [{ id: `h${id}`, key: 'keycloak.id', value: Buffer.from('abc').toString('base64') }],
          },
        ],
      },
    });
    expect(res.body.success.orgs[0].humanUserIds).toEqual([`h${id}`]);
    expect(res.body.errors).toEqual([
      { type: 'human_user', id: `b${id}`, message: expect.stringContaining('Errors.User.MFA.OTP.Invalid') },
    ]);
    const events = await post(server, '/admin/v1/events/_search', { aggregateId: `h${id}`, asc: true });
    expect(events.body.events.map((e: any) => [e.type.type, e.sequence])).toEqual([
      ['user.human.added', '1'],
      ['user.human.otp.added', '2'],
      ['user.metadata.set', '3'],
    ]);
    expect(JSON.stringify(events.body.events)).not.toContain('JBSWY3DPEHPK3PXP');
    const user = await get(server, `/management/v1/users/h${id}`, { headers: { 'x-service-orgid': `o${id}` } });
    expect(user.body.user.state).toBe('USER_STATE_INACTIVE');
  });

  it('records the same user.human.added payload as CreateUser does', async () => {
    const id = uniq();
    const profile = {
      firstName: 'Same',
      lastName: 'Shape',
      nickName: 'ss',
      displayName: 'Same Shape',
      preferredLanguage: 'de',
      gender: 'GENDER_FEMALE',
    };
    const created = await post(server, '/management/v1/users/human', {
      userName: `created${id}`,
      profile,
      email: { email: `created${id}@example.com`, isEmailVerified: true },
      phone: { phone: '+41 44 000 00 00', isPhoneVerified: true },
      initialPassword: 'Plain-Passw0rd!',
    });
    expect(created.status).toBe(200);
    await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Same ${id}` },
            humanUsers: [
              {
                userId: `h${id}`,
                user: {
                  userName: `imported${id}`,
                  profile,
                  email: { email: `imported${id}@example.com`, isEmailVerified: true },
                  phone: { phone: '+41 44 000 00 00', isPhoneVerified: true },
                  password: 'Plain-Passw0rd!',
                },
              },
            ],
          },
        ],
      },
    });
    const [viaCreate] = await humanEvents(server, created.body.userId);
    const [viaImport] = await humanEvents(server, `h${id}`);
    expect(Object.keys(viaImport.payload).sort()).toEqual(Object.keys(viaCreate.payload).sort());
    expect(viaImport.payload.gender).toBe(viaCreate.payload.gender);
  });

  it('accepts snake_case field names', async () => {
    const id = uniq();
    const res = await post(server, '/admin/v1/import', {
      data_orgs: {
        orgs: [
          {
            org_id: `o${id}`,
            org: { name: `Snake ${id}` },
            human_users: [
              {
                user_id: `h${id}`,
                user: { user_name: `snake${id}`, email: { email: `s${id}@example.com`, is_email_verified: true } },
              },
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.success.orgs[0].humanUserIds).toEqual([`h${id}`]);
  });

  it('reports an existing organization and still adds its users', async () => {
    const orgId = await defaultOrgId(server);
    const id = uniq();
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: { orgs: [{ orgId, org: { name: 'ignored' }, humanUsers: [human(`h${id}`, `carol${id}`)] }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([
      { type: 'org', id: orgId, message: expect.stringMatching(/^ID=\S+ Message=Errors\.Org\.AlreadyExisting$/) },
    ]);
    expect(res.body.success.orgs[0].humanUserIds).toEqual([`h${id}`]);
    const [added] = await humanEvents(server, `h${id}`);
    expect(added.aggregate.resourceOwner).toBe(orgId);
  });

  it('reports users that cannot be imported and imports the others', async () => {
    const id = uniq();
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Mixed ${id}` },
            humanUsers: [
              human(`ok${id}`, `dave${id}`),
              human(`dup${id}`, `DAVE${id}`),
              human(`hash${id}`, `erin${id}`, { hashedPassword: { value: '$md5$not-supported' } }),
              { userId: `mail${id}`, user: { userName: `frank${id}`, email: { email: 'not-an-email' } } },
              human(`twice${id}`, `dave${id}`),
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.success.orgs[0].humanUserIds).toEqual([`ok${id}`]);
    const byId = Object.fromEntries(res.body.errors.map((e: any) => [e.id, e]));
    expect(byId[`dup${id}`]).toEqual({
      type: 'human_user',
      id: `dup${id}`,
      message: expect.stringContaining('Message=Errors.User.AlreadyExisting'),
    });
    expect(byId[`hash${id}`].message).toContain('Message=Errors.User.Password.HashUnsupported');
    expect(byId[`mail${id}`].message).toContain('Message=Errors.User.Email.Invalid');
    expect(byId[`twice${id}`].message).toContain('Message=Errors.User.AlreadyExisting');
    expect(res.body.errors).toHaveLength(4);
    expect(await humanEvents(server, `hash${id}`)).toEqual([]);
  });

  it('creates no duplicates when the same body is sent again', async () => {
    const id = uniq();
    const body = {
      dataOrgs: {
        orgs: [
          {
            orgId: `o${id}`,
            org: { name: `Again ${id}` },
            humanUsers: [human(`a${id}`, `gina${id}`), human(`b${id}`, `hank${id}`)],
            userMetadata: [{ id: `a${id}`, key: 'team', value: Buffer.from('blue').toString('base64') }],
          },
        ],
      },
    };
    const first = await post(server, '/admin/v1/import', body);
    expect(first.body.errors).toEqual([]);
    expect(first.body.success.orgs[0].userMetadata).toEqual([{ id: `a${id}`, key: 'team' }]);
    const second = await post(server, '/admin/v1/import', body);
    expect(second.status).toBe(200);
    expect(second.body.success.orgs[0].humanUserIds).toEqual([`a${id}`, `b${id}`]);
    expect(second.body.errors).toEqual([
      { type: 'org', id: `o${id}`, message: expect.stringContaining('Errors.Org.AlreadyExisting') },
    ]);
    expect(await humanEvents(server, `a${id}`)).toHaveLength(1);
    const orgEvents = await post(server, '/admin/v1/events/_search', {
      aggregateId: `o${id}`,
      eventTypes: ['org.added'],
    });
    expect(orgEvents.body.events).toHaveLength(1);
  });

  it('rolls back the organization that runs out of time and reports it', async () => {
    const id = uniq();
    const humanUsers = Array.from({ length: 40 }, (_, i) =>
      human(`t${i}x${id}`, `slow${i}x${id}`, { password: 'Plain-Passw0rd' }),
    );
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: { orgs: [{ orgId: `o${id}`, org: { name: `Slow ${id}` }, humanUsers }] },
      timeout: '0.05s',
    });
    expect(res.status).toBe(200);
    expect(res.body.success.orgs).toEqual([]);
    expect(res.body.errors).toEqual([
      { type: 'org', id: `o${id}`, message: expect.stringContaining('Message=Errors.Import.Timeout') },
    ]);
    expect(await humanEvents(server, `t0x${id}`)).toEqual([]);
    const orgEvents = await post(server, '/admin/v1/events/_search', { aggregateId: `o${id}` });
    expect(orgEvents.body.events).toEqual([]);
  });

  it('answers bad bodies with 400 and a v1 JSON error', async () => {
    const cases: [unknown, RegExp][] = [
      ['{"dataOrgs": ', /not valid JSON/],
      ['[1,2]', /JSON object/],
      [{ timeout: '5m0s' }, /dataOrgs is required/],
      [{ dataOrgs: { orgs: [{ org: { name: 'x' } }] } }, /orgs\[0\]\.orgId is required/],
      [{ dataOrgs: { orgs: [{ orgId: '1', humanUsers: {} }] } }, /orgs\[0\]\.humanUsers must be an array/],
      [{ dataOrgs: { orgs: [{ orgId: 'has space' }] } }, /orgs\[0\]\.orgId may contain only/],
      [
        { dataOrgs: { orgs: [{ orgId: '1', humanUsers: [{ user: { userName: 5 } }] }] } },
        /humanUsers\[0\]\.user\.userName must be a string/,
      ],
      [{ dataOrgs: { orgs: [] }, timeout: 'soon' }, /timeout must be a duration/],
    ];
    for (const [body, message] of cases) {
      const res = await post(server, '/admin/v1/import', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ code: 3, message: expect.stringMatching(message), details: expect.any(Array) });
    }
  });

  it('answers missing or invalid tokens with 401 and insufficient ones with 403', async () => {
    const body = { dataOrgs: { orgs: [] } };
    const none = await post(server, '/admin/v1/import', body, { token: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe(16);
    const bad = await post(server, '/admin/v1/import', body, { token: 'pcp_unknown' });
    expect(bad.status).toBe(401);
    const orgOwner = await addMachineWithToken(server, await defaultOrgId(server), {
      name: 'v1 test',
      roles: ['ORG_OWNER'],
    });
    const denied = await post(server, '/admin/v1/import', body, { token: orgOwner.token });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(7);
  });
});
