import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';

describe('GetInstance end to end', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('returns the instance as Connect JSON over HTTP/1.1 with the admin PAT', async () => {
    const res = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.instance.id).toBe(server.app.bootstrap.instanceId);
    expect(body.instance.domain).toBe('localhost');
    expect(body.instance.defaultOrganizationId).toMatch(/^\d+$/);
  });

  it('answers unauthenticated without a token', async () => {
    const res = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      token: null,
    });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('unauthenticated');
  });

  it('answers unauthenticated for an unknown token', async () => {
    const client = server.client(InstanceService, { token: 'pcp_not-a-real-token' });
    await expect(client.getInstance({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });

  it('works over gRPC with HTTP/2 prior knowledge on the same port', async () => {
    const client = server.client(InstanceService, { protocol: 'grpc' });
    const res = await client.getInstance({});
    expect(res.instance?.id).toBe(server.app.bootstrap.instanceId);
    const anonymous = server.client(InstanceService, { protocol: 'grpc', token: null });
    const err = await anonymous.getInstance({}).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.Unauthenticated);
  });
});
