import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSamlConfig } from '../../../src/domain/idp/saml/config';
import { fetchIdpMetadata } from '../../../src/domain/idp/saml/metadata';
import { startSamlIdp } from '../../helpers/saml-idp';

/** The IdP runs on loopback, which only a server in development mode may reach. */
const dev = (timeoutMs: number) => ({ timeoutMs, development: true });

let idp: Awaited<ReturnType<typeof startSamlIdp>>;
beforeAll(async () => {
  idp = await startSamlIdp();
});
afterAll(() => idp.close());

describe('fetchIdpMetadata', () => {
  it('fetches the IdP metadata over HTTP, ready for checkSamlConfig', async () => {
    const xml = await fetchIdpMetadata(idp.metadataUrl, dev(2_000));
    expect(xml).toBe(idp.idpMetadataXml);
    expect(checkSamlConfig({ metadataXml: xml, metadataUrl: idp.metadataUrl }).binding).toBe('redirect');
  });

  it('a 404 is a mistake in metadata_url', async () => {
    await expect(fetchIdpMetadata(idp.metadataUrl.replace('/metadata', '/nope'), dev(2_000))).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringMatching(/^metadata_url answered HTTP 404/),
    });
  });

  it('a slow IdP is unavailable after the timeout, not a hang', async () => {
    const started = Date.now();
    await expect(fetchIdpMetadata(idp.metadataUrl.replace('/metadata', '/slow'), dev(300))).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/300 ms/),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('more than 1 MB is refused', async () => {
    await expect(fetchIdpMetadata(idp.metadataUrl.replace('/metadata', '/huge'), dev(5_000))).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringMatching(/^metadata_url is larger than 1048576 bytes/),
    });
  });

  it('a closed port is unavailable; a non-http URL is invalid', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(fetchIdpMetadata(`http://127.0.0.1:${port}/metadata`, dev(2_000))).rejects.toMatchObject({
      kind: 'unavailable',
    });
    await expect(fetchIdpMetadata('ftp://127.0.0.1/metadata', dev(2_000))).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringMatching(/^metadata_url/),
    });
    await expect(fetchIdpMetadata('not a url', dev(2_000))).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});
