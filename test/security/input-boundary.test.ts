import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';

describe('bad input at the boundary', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;

  beforeAll(async () => {
    server = await startTestServer();
    app = await addOidcApp(server, await addProject(server));
  });
  afterAll(() => server?.stop());

  const json = (path: string, body: string) =>
    server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('a NUL in a query or form parameter is a 400 naming the parameter', async () => {
    const authorize = await server.fetch(
      `/oauth/v2/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}` +
        '&response_type=code&scope=openid&state=a%00b',
      {
        redirect: 'manual',
      },
    );
    expect(authorize.status).toBe(400);
    expect(((await authorize.json()) as { error_description: string }).error_description).toContain('"state"');
    const token = await postForm(
      server,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code: 'x\u0000y', redirect_uri: REDIRECT },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('"code"'),
    });
    const login = await postForm(server, '/ui/login/login', { loginName: 'a\u0000' });
    expect(login.status).toBe(400);
  });

  it('a NUL in a JSON string is a 400 on v1 and invalid_argument naming the field on v2', async () => {
    const v1 = await json('/admin/v1/events/_search', '{"editorUserId":"a\\u0000b"}');
    expect(v1.status).toBe(400);
    expect(await v1.json()).toMatchObject({ code: 3, message: expect.stringContaining('editorUserId') });
    const err = await server
      .client(OrganizationService)
      .createOrganization({ name: 'Evil\u0000Corp' })
      .catch((e) => e);
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toContain('name');
    const grpc = await server
      .client(OrganizationService, { protocol: 'grpc' })
      .createOrganization({ name: 'Evil\u0000Corp' })
      .catch((e) => e);
    expect(grpc.code).toBe(Code.InvalidArgument);
  });

  it('numbers beyond their column are a 400, never a 500', async () => {
    for (const [body, field] of [
      ['{"position":"1e20"}', 'position'],
      ['{"position":1e20}', 'position'],
      ['{"sequence":"3000000000","aggregateId":"x"}', 'sequence'],
    ]) {
      const res = await json('/admin/v1/events/_search', body);
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as { message: string }).message, body).toContain(field);
    }
  });

  it('deeply nested JSON is a 400', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect((await json('/admin/v1/events/_search', deep)).status).toBe(400);
    expect((await json('/portcullis.org.v2.OrganizationService/CreateOrganization', `{"name":${deep}}`)).status).toBe(
      400,
    );
  });

  it('error_description never carries CR, LF or TAB', async () => {
    const res = await postForm(
      server,
      '/oauth/v2/token',
      { grant_type: 'evil\r\nSet-Cookie: x=1\tend' },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(res.status).toBe(400);
    const { error_description } = (await res.json()) as { error_description: string };
    expect(error_description).not.toMatch(/[\r\n\t]/);
    expect(error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
    const redirect = await server.fetch(
      `/oauth/v2/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}` +
        `&response_type=code&scope=${encodeURIComponent('openid\r\nevil\t"x"')}&prompt=bogus%0d%0a`,
      {
        redirect: 'manual',
      },
    );
    const location = redirect.headers.get('location') ?? '';
    const description = new URL(location).searchParams.get('error_description') ?? '';
    expect(description).not.toMatch(/[\r\n\t]/);
  });
});
