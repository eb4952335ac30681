import { createPublicKey, createSign, generateKeyPairSync } from 'node:crypto';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { checkUserPassword } from '../../../src/domain/user/queries';
import { startTestServer, type TestServer } from '../../helpers/server';
import { defaultOrgId } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';

describe('credentials, email, invitations and metadata', () => {
  let server: TestServer;
  let orgId: string;
  const newHuman = async (username: string, password?: string) =>
    server.client(UserService).createUser({
      organizationId: orgId,
      username,
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Cred', familyName: 'User' },
          email: { email: `${username}@example.com`, verification: { case: 'returnCode', value: {} } },
          passwordType: password ? { case: 'password', value: { password } } : { case: undefined },
        },
      },
    });

  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
  });
  afterAll(() => server?.stop());

  it('verifies an email with the returned code; a wrong code is INVALID_ARGUMENT and changes nothing', async () => {
    const users = server.client(UserService);
    const { id, emailCode } = await newHuman('mail-1');
    const wrong = await users.verifyEmail({ userId: id, verificationCode: 'WRONGCOD' }).catch((e) => e);
    expect(wrong.code).toBe(Code.InvalidArgument);
    expect(wrong.rawMessage).toMatch(/verification_code/);
    expect((await eventsOf(server, id, 'user.human.email.verified')).length).toBe(0);
    await users.verifyEmail({ userId: id, verificationCode: emailCode! });
    const { user } = await users.getUserByID({ userId: id });
    expect(user?.type.case === 'human' && user.type.value.email?.isVerified).toBe(true);
    expect((await eventsOf(server, id, 'user.human.email.verified')).length).toBe(1);
  });

  it('changes the email (unverified again), resends and verifies the new code', async () => {
    const users = server.client(UserService, { protocol: 'grpc' });
    const { id } = await newHuman('mail-2');
    const set = await users.setEmail({
      userId: id,
      email: 'new-mail-2@example.com',
      verification: { case: 'returnCode', value: {} },
    });
    expect(set.verificationCode).toBeTruthy();
    const resent = await users.resendEmailCode({ userId: id, verification: { case: 'returnCode', value: {} } });
    // The resent code replaces the earlier one.
    expect(
      (await users.verifyEmail({ userId: id, verificationCode: set.verificationCode! }).catch((e) => e)).code,
    ).toBe(Code.InvalidArgument);
    await users.verifyEmail({ userId: id, verificationCode: resent.verificationCode! });
    expect((await users.resendEmailCode({ userId: id }).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    const types = (await eventsOf(server, id)).map((e) => e.eventType);
    expect(types).toContain('user.human.email.changed');
    expect(types.filter((t) => t === 'user.human.email.code.added')).toHaveLength(3);
    const bad = await users.setEmail({ userId: id, email: 'nope' }).catch((e) => e);
    expect(bad.code).toBe(Code.InvalidArgument);
    expect(bad.rawMessage).toMatch(/^.*email is not a valid email address/);
  });

  it('sets passwords: by an administrator, with the current password, with a reset code; policy enforced', async () => {
    const users = server.client(UserService);
    const { id } = await newHuman('pw-1', 'First-Passw0rd');
    await users.setPassword({ userId: id, newPassword: { password: 'Second-Passw0rd' } });
    expect(await checkUserPassword(server.app.database.db, id, 'Second-Passw0rd')).toBe(true);
    const weak = await users.setPassword({ userId: id, newPassword: { password: 'short' } }).catch((e) => e);
    expect(weak.code).toBe(Code.InvalidArgument);
    expect(weak.rawMessage).toMatch(/new_password\.password needs at least 8 characters/);
    const wrongCurrent = await users
      .setPassword({
        userId: id,
        newPassword: { password: 'Third-Passw0rd' },
        verification: { case: 'currentPassword', value: 'not-it' },
      })
      .catch((e) => e);
    expect(wrongCurrent.code).toBe(Code.InvalidArgument);
    await users.setPassword({
      userId: id,
      newPassword: { password: 'Third-Passw0rd' },
      verification: { case: 'currentPassword', value: 'Second-Passw0rd' },
    });
    const reset = await users.passwordReset({ userId: id, medium: { case: 'returnCode', value: {} } });
    expect(reset.verificationCode).toBeTruthy();
    await users.setPassword({
      userId: id,
      newPassword: { password: 'Fourth-Passw0rd' },
      verification: { case: 'verificationCode', value: reset.verificationCode! },
    });
    expect(await checkUserPassword(server.app.database.db, id, 'Fourth-Passw0rd')).toBe(true);
    const reused = await users
      .setPassword({
        userId: id,
        newPassword: { password: 'Fifth-Passw0rd' },
        verification: { case: 'verificationCode', value: reset.verificationCode! },
      })
      .catch((e) => e);
    expect(reused.code).toBe(Code.InvalidArgument);
    expect((await eventsOf(server, id, 'user.human.password.changed')).length).toBe(3);
    const sent = await users.passwordReset({
      userId: id,
      medium: { case: 'sendLink', value: { urlTemplate: 'https://app.example.com/reset?c={{.Code}}' } },
    });
    expect(sent.verificationCode).toBeUndefined();
    const mails = await server.app.database.db.query.notifications.findMany({ where: (n, { eq }) => eq(n.userId, id) });
    expect(mails.map((m) => m.kind)).toEqual(['PASSWORD_RESET']);
    expect(mails[0].body).toContain('https://app.example.com/reset?c=');
  });

  it('invites a user who then sets a password with the code; resend needs a sent invitation', async () => {
    const users = server.client(UserService);
    const { id } = await newHuman('invite-1');
    const returned = await users.createInviteCode({ userId: id, verification: { case: 'returnCode', value: {} } });
    expect(returned.inviteCode).toBeTruthy();
    expect((await users.resendInviteCode({ userId: id }).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    await users.createInviteCode({
      userId: id,
      verification: { case: 'sendCode', value: { applicationName: 'Acme Portal' } },
    });
    await users.resendInviteCode({ userId: id });
    const mails = await server.app.database.db.query.notifications.findMany({
      where: (n, { eq, and }) => and(eq(n.userId, id), eq(n.kind, 'INVITATION')),
    });
    expect(mails).toHaveLength(2);
    expect(mails.every((m) => m.subject === 'You are invited to Acme Portal')).toBe(true);
    const fresh = await users.createInviteCode({ userId: id, verification: { case: 'returnCode', value: {} } });
    const weak = await users
      .verifyInviteCode({ userId: id, verificationCode: fresh.inviteCode!, password: 'x' })
      .catch((e) => e);
    expect(weak.code).toBe(Code.InvalidArgument);
    expect(weak.rawMessage).toMatch(/^password needs at least 8 characters/);
    await users.verifyInviteCode({ userId: id, verificationCode: fresh.inviteCode!, password: 'Invited-Passw0rd' });
    expect(await checkUserPassword(server.app.database.db, id, 'Invited-Passw0rd')).toBe(true);
    const { user } = await users.getUserByID({ userId: id });
    expect(user?.type.case === 'human' && user.type.value.email?.isVerified).toBe(true);
    expect((await eventsOf(server, id, 'user.human.invite.code.added')).length).toBe(4);
  });

  it('delivers outbox messages in the background (logged without SMTP) and marks them SENT', async () => {
    const { id } = await server.client(UserService).createUser({
      organizationId: orgId,
      userType: {
        case: 'human',
        value: { profile: { givenName: 'O', familyName: 'B' }, email: { email: 'deliver@example.com' } },
      },
    });
    let row: { status: string; attempts: number; recipient: string; sentAt: Date | null } | undefined;
    for (let i = 0; i < 100; i++) {
      [row] = await server.app.database.db.query.notifications.findMany({ where: (n, { eq }) => eq(n.userId, id) });
      if (row?.status === 'SENT') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row).toMatchObject({ status: 'SENT', attempts: 1, recipient: 'deliver@example.com' });
    expect(row!.sentAt).toBeInstanceOf(Date);
  });

  it('manages a machine secret, keys and personal access tokens', async () => {
    const users = server.client(UserService);
    const { id } = await users.createUser({
      organizationId: orgId,
      username: 'svc-1',
      userType: { case: 'machine', value: { name: 'Service' } },
    });

    const secret = await users.addSecret({ userId: id });
    expect(secret.clientId).toBe('svc-1');
    expect(secret.clientSecret.length).toBeGreaterThan(30);
    expect((await users.getUserByID({ userId: id })).user?.type).toMatchObject({
      case: 'machine',
      value: { hasSecret: true },
    });
    await users.removeSecret({ userId: id });
    expect((await users.getUserByID({ userId: id })).user?.type).toMatchObject({
      case: 'machine',
      value: { hasSecret: false },
    });

    const expiration = timestampFromDate(new Date(Date.now() + 86_400_000));
    const generated = await users.addKey({ userId: id, expirationDate: expiration });
    const keyFile = JSON.parse(new TextDecoder().decode(generated.keyContent));
    expect(keyFile).toMatchObject({ type: 'serviceaccount', keyId: generated.keyId, userId: id });
    // The private key in the file signs what the stored public key verifies.
    const signature = createSign('sha256').update('x').sign(keyFile.key);
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const uploaded = await users.addKey({
      userId: id,
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect(uploaded.keyContent.length).toBe(0);
    const keys = await users.listKeys({ userId: id });
    expect(keys.result.map((k) => k.id).sort()).toEqual([generated.keyId, uploaded.keyId].sort());
    expect(keys.result.find((k) => k.id === generated.keyId)?.expirationDate?.seconds).toBe(expiration.seconds);
    const { findMachineKey } = await import('../../../src/domain/user/queries');
    const stored = await findMachineKey(server.app.database.db, generated.keyId);
    expect(createPublicKey(stored!.publicKey).type).toBe('public');
    const { createVerify } = await import('node:crypto');
    expect(createVerify('sha256').update('x').verify(stored!.publicKey, signature)).toBe(true);
    await users.removeKey({ userId: id, keyId: uploaded.keyId });
    expect((await users.removeKey({ userId: id, keyId: uploaded.keyId }).catch((e) => e)).code).toBe(Code.NotFound);
    const past = await users
      .addKey({ userId: id, expirationDate: timestampFromDate(new Date(Date.now() - 1000)) })
      .catch((e) => e);
    expect(past.code).toBe(Code.InvalidArgument);
    expect(past.rawMessage).toMatch(/expiration_date must be in the future/);
    const badKey = await users.addKey({ userId: id, publicKey: 'not a key' }).catch((e) => e);
    expect(badKey.rawMessage).toMatch(/public_key/);

    const pat = await users.addPersonalAccessToken({ userId: id });
    const asMachine = server.client(UserService, { token: pat.token });
    expect((await asMachine.getUserByID({ userId: id })).user?.userId).toBe(id);
    expect((await users.listPersonalAccessTokens({ userId: id })).result.map((t) => t.id)).toEqual([pat.tokenId]);
    await users.removePersonalAccessToken({ userId: id, tokenId: pat.tokenId });
    expect((await asMachine.getUserByID({ userId: id }).catch((e) => e)).code).toBe(Code.Unauthenticated);

    const types = (await eventsOf(server, id)).map((e) => e.eventType);
    for (const t of [
      'user.machine.secret.set',
      'user.machine.secret.removed',
      'user.machine.key.added',
      'user.machine.key.removed',
      'user.personal.access.token.added',
      'user.personal.access.token.removed',
    ]) {
      expect(types).toContain(t);
    }
    const human = await newHuman('no-pat-human');
    expect((await users.addPersonalAccessToken({ userId: human.id }).catch((e) => e)).code).toBe(
      Code.FailedPrecondition,
    );
  });

  it('sets, lists and deletes metadata', async () => {
    const users = server.client(UserService, { protocol: 'grpc' });
    const { id } = await newHuman('meta-1');
    const enc = (s: string) => new TextEncoder().encode(s);
    await users.setUserMetadata({
      userId: id,
      metadata: [
        { key: 'b', value: enc('2') },
        { key: 'a', value: enc('1') },
      ],
    });
    await users.setUserMetadata({ userId: id, metadata: [{ key: 'a', value: enc('one') }] });
    const listed = await users.listUserMetadata({ userId: id });
    expect(listed.metadata.map((m) => [m.key, new TextDecoder().decode(m.value)])).toEqual([
      ['a', 'one'],
      ['b', '2'],
    ]);
    await users.deleteUserMetadata({ userId: id, keys: ['a', 'missing'] });
    expect((await users.listUserMetadata({ userId: id })).metadata.map((m) => m.key)).toEqual(['b']);
    const types = (await eventsOf(server, id)).map((e) => e.eventType);
    expect(types.filter((t) => t === 'user.metadata.set')).toHaveLength(3);
    expect(types.filter((t) => t === 'user.metadata.removed')).toHaveLength(1);
    const bad = await users.setUserMetadata({ userId: id, metadata: [{ key: '', value: enc('x') }] }).catch((e) => e);
    expect(bad.rawMessage).toMatch(/metadata\[0\]\.key is required/);
  });
});
