import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Code, type ConnectError } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { checkUserPassword } from '../../src/domain/user/queries';
import { REDIRECT } from '../helpers/apps';
import { Browser, decodeHtml } from '../helpers/browser';
import { defaultOrgId } from '../helpers/context';
import { freshDatabase } from '../helpers/database';
import { addRelyingParty } from '../helpers/login-flow';
import { runCli, waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** Passwords people actually choose: on every list of the most common, or one with a digit or `!` added. */
const COMMON = ['password123', 'Password1!', 'qwerty123', '12345678', 'Welcome1!'];
const STRONG = 'Larch-Quartz-Fjord-42';
const RULE = /is one of the most commonly used passwords/;

const alertOf = (html: string) => decodeHtml(/role="alert"[^>]*>([^<]+)</.exec(html)?.[1] ?? '');

describe('commonly used passwords', () => {
  let server: TestServer;
  let orgId: string;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
    config = await addRelyingParty(server, { basicAuth: true });
  });
  afterAll(() => server?.stop());

  const createHuman = (username: string, password: string) =>
    server.client(UserService).createUser({
      organizationId: orgId,
      username,
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Common', familyName: 'Choice' },
          email: { email: `${username}@example.com`, verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password } },
        },
      },
    });

  it('CreateUser refuses each common password with invalid_argument naming the rule; a strong one passes', async () => {
    for (const [i, password] of COMMON.entries()) {
      const err = (await createHuman(`common-${i}`, password).catch((e) => e)) as ConnectError;
      expect(err.code, password).toBe(Code.InvalidArgument);
      expect(err.rawMessage, password).toMatch(/^human\.password\.password is one of the most commonly used passwords/);
    }
    const { id } = await createHuman('uncommon', STRONG);
    expect(await checkUserPassword(server.app.database.db, id, STRONG)).toBe(true);
  });

  it('SetPassword refuses them, by an administrator and by the user with the current password', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    for (const password of COMMON) {
      const byAdmin = await users.setPassword({ userId: user.id, newPassword: { password } }).catch((e) => e);
      expect(byAdmin.code, password).toBe(Code.InvalidArgument);
      expect(byAdmin.rawMessage, password).toMatch(RULE);
      const bySelf = await users
        .setPassword({
          userId: user.id,
          newPassword: { password },
          verification: { case: 'currentPassword', value: user.password },
        })
        .catch((e) => e);
      expect(bySelf.code, password).toBe(Code.InvalidArgument);
      expect(bySelf.rawMessage, password).toMatch(RULE);
    }
    // The old password still works: nothing was changed.
    expect(await checkUserPassword(server.app.database.db, user.id, user.password)).toBe(true);
    await users.setPassword({ userId: user.id, newPassword: { password: STRONG } });
    expect(await checkUserPassword(server.app.database.db, user.id, STRONG)).toBe(true);
  });

  it('a new password is refused however the common word is cased or suffixed', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    for (const password of ['PASSWORD', 'pAsSwOrD2024!', 'Sunshine!!', 'iloveyou7', 'Dragon#1']) {
      const err = await users.setPassword({ userId: user.id, newPassword: { password } }).catch((e) => e);
      expect(err.code, password).toBe(Code.InvalidArgument);
      expect(err.rawMessage, password).toMatch(RULE);
    }
  });

  it('GetPasswordComplexitySettings tells any signed-in user the rules; the switch turns the list off', async () => {
    const user = await addUser(server);
    const { settings } = await server.client(SettingsService).getPasswordComplexitySettings({});
    expect(settings).toMatchObject({ minLength: 8, blocksCommon: true });

    const instance = server.client(InstanceService);
    expect((await instance.getInstanceSettings({})).settings?.passwordBlockCommon).toBe(true);
    await instance.updateInstanceSettings({ passwordBlockCommon: false });
    try {
      await server.client(UserService).setPassword({ userId: user.id, newPassword: { password: 'qwerty123' } });
      expect((await server.client(SettingsService).getPasswordComplexitySettings({})).settings?.blocksCommon).toBe(
        false,
      );
    } finally {
      await instance.updateInstanceSettings({ passwordBlockCommon: true });
    }
    // Without a token nobody reads them.
    const anonymous = await server
      .client(SettingsService, { token: null })
      .getPasswordComplexitySettings({})
      .catch((e) => e);
    expect(anonymous.code).toBe(Code.Unauthenticated);
  });

  const authUrl = (prompt?: string) =>
    client
      .buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', ...(prompt ? { prompt } : {}) })
      .toString();

  it('the registration form shows the rules before the user types and names the rule it refuses', async () => {
    const browser = new Browser(server.url);
    const form = await browser.go(authUrl('create'));
    expect(form.res.status).toBe(200);
    expect(form.html).toContain('id="password-rules"');
    expect(form.html).toContain('at least 8 characters');
    expect(form.html).toContain('not one of the most commonly used passwords');
    expect(form.html).toMatch(/<input[^>]*id="password"[^>]*aria-describedby="password-rules"/);

    const refused = await browser.submit(form, '/ui/login/register', {
      givenName: 'Common',
      familyName: 'Choice',
      email: 'common-register@example.com',
      password: 'Welcome1!',
      passwordConfirm: 'Welcome1!',
    });
    expect(refused.res.status).toBe(400);
    expect(alertOf(refused.html)).toBe(
      'This password is one of the most commonly used passwords. Please choose another.',
    );
    expect(refused.html).toContain('id="password-rules"');

    // In German too.
    const german = new Browser(server.url, { 'accept-language': 'de' });
    const deForm = await german.go(authUrl('create'));
    expect(deForm.html).toContain('keines der am häufigsten verwendeten Passwörter');
    const deRefused = await german.submit(deForm, '/ui/login/register', {
      givenName: 'Häufig',
      familyName: 'Gewählt',
      email: 'common-register-de@example.com',
      password: 'qwerty123',
      passwordConfirm: 'qwerty123',
    });
    expect(alertOf(deRefused.html)).toMatch(/gehört zu den am häufigsten verwendeten/);
  });

  it('the required password change shows the rules and refuses a common password naming the rule', async () => {
    const username = `change-common-${Date.now()}`;
    const { id: userId } = await server.client(UserService).createUser({
      organizationId: orgId,
      username,
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Chan', familyName: 'Ge' },
          email: { email: `${username}@example.com`, verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password: 'Initial-Passw0rd!', changeRequired: true } },
        },
      },
    });
    const browser = new Browser(server.url);
    let page = await browser.go(authUrl());
    page = await browser.submit(page, '/ui/login/login', { loginName: username });
    page = await browser.submit(page, '/ui/login/password', { password: 'Initial-Passw0rd!' });
    expect(page.url).toContain('/ui/login/password/change');
    expect(page.html).toContain('id="password-rules"');
    expect(page.html).toContain('not one of the most commonly used passwords');

    const refused = await browser.submit(page, '/ui/login/password/change', {
      password: 'Password1!',
      passwordConfirm: 'Password1!',
    });
    expect(refused.res.status).toBe(400);
    expect(alertOf(refused.html)).toBe(
      'This password is one of the most commonly used passwords. Please choose another.',
    );
    expect(await checkUserPassword(server.app.database.db, userId, 'Password1!')).toBe(false);

    const done = await browser.submit(refused, '/ui/login/password/change', {
      password: STRONG,
      passwordConfirm: STRONG,
    });
    expect(done.url.startsWith(REDIRECT)).toBe(true);
  });
});

describe('the first administrator', () => {
  it('a start with a common PORTCULLIS_ADMIN_PASSWORD is refused, naming the rule, and creates nothing', async () => {
    await expect(startTestServer({ PORTCULLIS_ADMIN_PASSWORD: 'Password1!' })).rejects.toThrow(
      'PORTCULLIS_ADMIN_PASSWORD is one of the most commonly used passwords',
    );
  }, 120_000);

  it('the command exits with the rule named; the same data folder then starts with a strong password', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-common-'));
    const db = await freshDatabase();
    const env = {
      PORT: '0',
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: dataDir,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };
    try {
      const refused = runCli(['start'], { ...env, PORTCULLIS_ADMIN_PASSWORD: 'Welcome1!' });
      expect(await refused.exited).toBe(1);
      expect(refused.stderr()).toContain(
        'portcullis: PORTCULLIS_ADMIN_PASSWORD is one of the most commonly used passwords: choose another',
      );

      // Nothing was created: a strong password then makes the instance, with that password.
      const started = runCli(['start'], { ...env, PORTCULLIS_ADMIN_PASSWORD: STRONG });
      let exited = false;
      void started.exited.then(() => (exited = true));
      try {
        await waitFor(() => exited || started.stdout().includes('PORTCULLIS_ADMIN_PASSWORD'), 150_000, 'the start');
        expect(started.stdout() + started.stderr()).toContain('Login name "admin" with the password from');
      } finally {
        started.child.kill('SIGTERM');
        await started.exited;
      }
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
