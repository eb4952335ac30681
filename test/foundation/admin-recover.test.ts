import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { ApplicationState } from '../../gen/portcullis/application/v2/application_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { loadConfig } from '../../src/config';
import { administrators, applications, events, projects, users } from '../../src/db/schema/index';
import { CONSOLE_APP_ID, SYSTEM_PROJECT_ID } from '../../src/domain/instance/system-resources';
import { type Portcullis, start } from '../../src/main';
import { createLogger } from '../../src/log';
import { freshDatabase } from '../helpers/database';
import { runCli } from '../helpers/process';

/**
 * `portcullis admin recover`: an operator locked out of their instance (every owner's token gone, the
 * console application and its project removed) gets it back with access to the database alone.
 */
describe('portcullis admin recover', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-recover-'));
  const drops: (() => Promise<void>)[] = [];
  let app: Portcullis | undefined;
  afterAll(async () => {
    await app?.stop();
    for (const drop of drops) await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let env: Record<string, string>;
  const startServer = async () => {
    const config = loadConfig({ ...env, PORT: '0', PORTCULLIS_HOST: '127.0.0.1', PORTCULLIS_LOG_LEVEL: 'silent' });
    app = await start(config, { log: createLogger('silent') });
    return app;
  };
  const api = (server: Portcullis, token: string) => {
    const transport = createConnectTransport({
      baseUrl: `http://127.0.0.1:${server.server!.port}`,
      httpVersion: '1.1',
      interceptors: [
        (next) => async (req) => {
          req.header.set('Authorization', `Bearer ${token}`);
          return next(req);
        },
      ],
    });
    return {
      instance: createClient(InstanceService, transport),
      users: createClient(UserService, transport),
      apps: createClient(ApplicationService, transport),
    };
  };
  const cli = async (args: string[]) => {
    const run = runCli(['admin', 'recover', ...args], env);
    return { code: await run.exited, out: run.stdout(), err: run.stderr() };
  };

  it('answers --help with every option, and wrong options with one line and exit 1', async () => {
    env = { PORTCULLIS_DATA_DIR: dataDir };
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--pat-file', '--force', '--user', '--password-file', '--help'])
      expect(help.out).toContain(flag);
    for (const args of [['--bogus'], ['--password-file', '/nonexistent'], ['--user', 'admin', '--force']]) {
      const bad = await cli(args);
      expect(bad.code, args.join(' ')).toBe(1);
      expect(bad.err).toMatch(/^portcullis admin recover: /);
      expect(bad.err).not.toMatch(/\n\s+at /);
    }
    // no database yet: said so, nothing created
    const none = await cli([]);
    expect(none).toMatchObject({ code: 1 });
    expect(none.err).toMatch(/there is no database in/);
  }, 240_000);

  it('brings back an owner, its token and the console after all of them were removed', async () => {
    const db = await freshDatabase();
    drops.push(db.drop);
    env = { PORTCULLIS_DATA_DIR: dataDir, ...(db.url ? { DATABASE_URL: db.url } : {}) };
    let server = await startServer();
    const firstPat = fs.readFileSync(server.config.adminPatFile!, 'utf8').trim();
    await api(server, firstPat).instance.getInstance({});

    // The lock-out, made in the database: every token gone, no owner role left on the human admin,
    // the console's application deleted and its project removed.
    const d = server.database.db;
    await d.execute(sql`delete from personal_access_tokens`);
    const [admin] = await d.select().from(users).where(eq(users.username, 'admin'));
    await d
      .delete(administrators)
      .where(and(eq(administrators.userId, admin.id), eq(administrators.resourceType, 'INSTANCE')));
    await d.delete(applications).where(eq(applications.id, CONSOLE_APP_ID));
    await d.update(projects).set({ state: 'REMOVED' }).where(eq(projects.id, SYSTEM_PROJECT_ID));
    await server.stop();
    app = undefined;

    // A new IAM_OWNER machine user; the first start's PAT file is kept, the new token goes beside it.
    const machine = await cli([]);
    expect(machine.err).toBe('');
    expect(machine.code).toBe(0);
    const written = /personal access token is in (\S+)/.exec(machine.out)?.[1];
    expect(written).toBeDefined();
    expect(written).not.toBe(server.config.adminPatFile);
    expect(fs.readFileSync(server.config.adminPatFile!, 'utf8').trim()).toBe(firstPat);
    expect(fs.statSync(written!).mode & 0o777).toBe(0o600);
    const pat = fs.readFileSync(written!, 'utf8').trim();
    expect(machine.out).toMatch(/Restored the system project/);

    // The human admin: a new password (to be changed at the next sign-in) and IAM_OWNER again.
    const passwordFile = path.join(dataDir, 'new-password');
    fs.writeFileSync(passwordFile, 'Recovered-Passw0rd-2026\n');
    const human = await cli(['--user', 'admin', '--password-file', passwordFile]);
    expect(human.err).toBe('');
    expect(human.code).toBe(0);

    // A named PAT file that exists is not overwritten without --force.
    const refused = await cli(['--pat-file', written!]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/exists: pass --force/);
    expect(fs.readFileSync(written!, 'utf8').trim()).toBe(pat);

    server = await startServer();
    const as = api(server, pat);
    const got = await as.instance.getInstance({});
    expect(got.instance?.id).toBe(server.deps.instanceId);
    const listed = await as.users.listUsers({});
    expect(listed.result.map((u) => u.username)).toContain('admin');
    const consoleApp = await as.apps.getApplication({ applicationId: CONSOLE_APP_ID });
    expect(consoleApp.application?.state).toBe(ApplicationState.ACTIVE);
    expect(consoleApp.application?.configuration.case).toBe('oidc');

    const d2 = server.database.db;
    const [after] = await d2.select().from(users).where(eq(users.id, admin.id));
    expect(after.passwordChangeRequired).toBe(true);
    const [owner] = await d2
      .select({ roles: administrators.roles })
      .from(administrators)
      .where(and(eq(administrators.userId, admin.id), eq(administrators.resourceType, 'INSTANCE')));
    expect(owner.roles).toContain('IAM_OWNER');
    const [project] = await d2.select().from(projects).where(eq(projects.id, SYSTEM_PROJECT_ID));
    expect(project.state).toBe('ACTIVE');
    // Recorded as events, by the recovery.
    const recorded = await d2
      .select({ type: events.eventType })
      .from(events)
      .where(eq(events.editorService, 'recover'));
    const types = recorded.map((e) => e.type);
    for (const t of [
      'user.machine.added',
      'administrator.added',
      'user.personal.access.token.added',
      'user.human.password.changed',
      'project.reactivated',
    ])
      expect(types, t).toContain(t);
  }, 300_000);
});
