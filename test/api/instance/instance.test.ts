import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService, SigningAlgorithm } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { sourceOf } from '../../../src/deps';
import { getInstanceSettings } from '../../../src/domain/instance/settings';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';

describe('InstanceService', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('renames the instance', async () => {
    const instance = server.client(InstanceService);
    const position = await lastPosition(server);
    const before = (await instance.getInstance({})).instance!;
    await instance.updateInstance({ instanceName: 'Renamed Instance' });
    // what GetInstance answered before is not served again after the change
    const after = (await instance.getInstance({})).instance!;
    expect(after.name).toBe('Renamed Instance');
    const changed = (i: typeof before) => Number(i.changeDate?.seconds) * 1000 + (i.changeDate?.nanos ?? 0) / 1e6;
    expect(changed(after)).toBeGreaterThan(changed(before));
    await expect(instance.updateInstance({ instanceName: '' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('instance_name'),
    });
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual(['instance.changed']);
    expect(evs[0]).toMatchObject({ aggregateType: 'instance', aggregateId: server.app.bootstrap.instanceId });
  });

  it('adds, lists and removes trusted domains', async () => {
    const instance = server.client(InstanceService);
    const position = await lastPosition(server);
    expect((await instance.getInstance({})).instance?.domains).not.toContain('login.example.com');
    await instance.addTrustedDomain({ domain: 'login.example.com' });
    await expect(instance.addTrustedDomain({ domain: 'login.example.com' })).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    await expect(instance.addTrustedDomain({ domain: 'https://login.example.com/' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('domain'),
    });
    let list = await instance.listInstanceDomains({ pagination: { asc: true } });
    expect(list.domains.map((d) => [d.domain, d.isGenerated, d.isTrusted])).toEqual([
      ['localhost', true, true],
      ['login.example.com', false, true],
    ]);
    expect((await instance.getInstance({})).instance?.domains).toContain('login.example.com');
    await expect(instance.removeTrustedDomain({ domain: 'localhost' })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
    await instance.removeTrustedDomain({ domain: 'login.example.com' });
    await instance.removeTrustedDomain({ domain: 'login.example.com' });
    list = await instance.listInstanceDomains({});
    expect(list.domains.map((d) => d.domain)).toEqual(['localhost']);
    expect((await instance.getInstance({})).instance?.domains).toEqual(['localhost']);
    const types = (await eventsSince(server, position)).map((e) => e.eventType);
    expect(types).toEqual(['instance.domain.added', 'instance.domain.removed']);
  });

  it('reads and updates the settings the OIDC layer uses', async () => {
    const instance = server.client(InstanceService, { protocol: 'grpc' });
    const before = (await instance.getInstanceSettings({})).settings!;
    expect(before).toMatchObject({
      accessTokenLifetimeSeconds: 43200,
      impersonationAllowed: false,
      signingAlgorithm: SigningAlgorithm.RS256,
      passwordMinLength: 8,
    });
    const position = await lastPosition(server);
    await instance.updateInstanceSettings({
      accessTokenLifetimeSeconds: 600,
      impersonationAllowed: true,
      signingAlgorithm: SigningAlgorithm.ES256,
      passwordRequireSymbol: true,
      lockoutMaxPasswordAttempts: 3,
    });
    const after = (await instance.getInstanceSettings({})).settings!;
    expect(after).toMatchObject({
      accessTokenLifetimeSeconds: 600,
      idTokenLifetimeSeconds: before.idTokenLifetimeSeconds,
      impersonationAllowed: true,
      signingAlgorithm: SigningAlgorithm.ES256,
      passwordRequireSymbol: true,
      lockoutMaxPasswordAttempts: 3,
    });
    const domain = await getInstanceSettings(sourceOf(server.app.deps), server.app.bootstrap.instanceId);
    expect(domain).toMatchObject({
      accessTokenLifetimeSeconds: 600,
      signingAlgorithm: 'ES256',
      impersonationAllowed: true,
    });
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual(['instance.settings.changed']);
    expect(evs[0].payload).toEqual({
      accessTokenLifetimeSeconds: 600,
      impersonationAllowed: true,
      signingAlgorithm: 'ES256',
      passwordRequireSymbol: true,
      lockoutMaxPasswordAttempts: 3,
    });
  });

  it('rejects settings out of range, naming the field, and records nothing', async () => {
    const instance = server.client(InstanceService);
    const position = await lastPosition(server);
    await expect(instance.updateInstanceSettings({ accessTokenLifetimeSeconds: 5 })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('access_token_lifetime_seconds'),
    });
    await expect(
      instance.updateInstanceSettings({ refreshTokenIdleSeconds: 7200, refreshTokenAbsoluteSeconds: 3600 }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('refresh_token_absolute_seconds'),
    });
    expect(await eventsSince(server, position)).toHaveLength(0);
    expect((await instance.getInstanceSettings({})).settings?.accessTokenLifetimeSeconds).toBe(600);
  });
});
