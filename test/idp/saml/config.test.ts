import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as samlify from 'samlify';
import { describe, expect, it } from 'vitest';
import { DomainError, fieldOf } from '../../../src/domain/errors';
import { checkSamlConfig, generateSpKeys } from '../../../src/domain/idp/saml/config';
import { spMetadata } from '../../../src/domain/idp/saml/metadata';
import { createSamlIdp } from '../../helpers/saml-idp';

const idp = createSamlIdp();
const metadataXml = idp.idpMetadataXml;

function fieldOfError(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid_argument');
    return fieldOf(err as DomainError);
  }
  throw new Error('expected an error');
}

describe('checkSamlConfig', () => {
  it('fills the defaults', () => {
    expect(checkSamlConfig({ metadataXml })).toEqual({
      metadataXml,
      binding: 'redirect',
      signRequests: false,
      nameIdFormat: 'unspecified',
      wantAssertionsSigned: true,
      mapping: {},
    });
  });

  it('keeps valid settings', () => {
    const c = checkSamlConfig({
      metadataXml,
      metadataUrl: 'https://idp.test/metadata',
      binding: 'post',
      signRequests: true,
      nameIdFormat: 'transient',
      transientMappingAttributeName: 'employeeNumber',
      wantAssertionsSigned: false,
      mapping: { email: 'corpMail' },
    });
    expect(c).toMatchObject({ binding: 'post', nameIdFormat: 'transient', mapping: { email: 'corpMail' } });
  });

  it('names the snake_case field of each mistake', () => {
    const onlyRedirect = metadataXml.replace(/<SingleSignOnService[^>]*HTTP-POST[^>]*>(<\/SingleSignOnService>)?/g, '');
    expect(onlyRedirect).not.toBe(metadataXml);
    const noKeys = metadataXml.replace(/<(\w+:)?KeyDescriptor[\s\S]*?<\/(\w+:)?KeyDescriptor>/g, '');
    expect(noKeys).not.toContain('X509Certificate');
    const cases: [unknown, string][] = [
      [{}, 'metadata_xml'],
      [{ metadataXml: 'not xml <' }, 'metadata_xml'],
      [{ metadataXml: '<a/>' }, 'metadata_xml'],
      [{ metadataXml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${metadataXml}` }, 'metadata_xml'],
      [{ metadataXml: onlyRedirect, binding: 'post' }, 'metadata_xml'],
      [{ metadataXml: noKeys }, 'metadata_xml'],
      [{ metadataXml, binding: 'soap' }, 'binding'],
      [{ metadataXml, nameIdFormat: 'kerberos' }, 'name_id_format'],
      [{ metadataXml, signRequests: 'yes' }, 'sign_requests'],
      [{ metadataXml, wantAssertionsSigned: 1 }, 'want_assertions_signed'],
      [{ metadataXml, nameIdFormat: 'transient' }, 'transient_mapping_attribute_name'],
      [{ metadataXml, metadataUrl: 'file:///etc/passwd' }, 'metadata_url'],
      [{ metadataXml, mapping: { password: 'pw' } }, 'mapping.password'],
      [{ metadataXml, mapping: { email: 7 } }, 'mapping.email'],
    ];
    for (const [input, field] of cases)
      expect(
        fieldOfError(() => checkSamlConfig(input)),
        JSON.stringify(input),
      ).toBe(field);
    // the redirect binding is still offered by that metadata
    expect(checkSamlConfig({ metadataXml: onlyRedirect }).binding).toBe('redirect');
  });
});

describe('generateSpKeys', () => {
  it('makes a self-signed RSA 2048 certificate for its key, valid for 10 years', () => {
    const keys = generateSpKeys('Acme SAML');
    const cert = new X509Certificate(keys.certificatePem);
    expect(cert.subject).toBe('CN=Acme SAML');
    expect(cert.issuer).toBe('CN=Acme SAML');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(keys.privateKeyPem))).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const years = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / (365.25 * 24 * 3600_000);
    expect(years).toBeCloseTo(10, 1);
    expect(Date.parse(cert.validFrom)).toBeLessThanOrEqual(Date.now());
    expect(new X509Certificate(generateSpKeys('Acme SAML').certificatePem).serialNumber).not.toBe(cert.serialNumber);
  });
});

describe('spMetadata', () => {
  const keys = generateSpKeys('Portcullis');
  const endpoints = {
    entityId: 'https://auth.example.com/idps/1/saml/metadata',
    acsUrl: 'https://auth.example.com/idps/1/saml/acs',
  };
  const certBody = keys.certificatePem.replace(/-----[^-]+-----|\s/g, '');

  for (const signRequests of [true, false]) {
    it(`loads into samlify's ServiceProvider (signRequests ${signRequests})`, () => {
      const config = checkSamlConfig({ metadataXml, signRequests, nameIdFormat: 'persistent' });
      const sp = samlify.ServiceProvider({ metadata: spMetadata(config, keys, endpoints) }).entityMeta;
      expect(sp.getEntityID()).toBe(endpoints.entityId);
      expect(sp.getAssertionConsumerService('post')).toBe(endpoints.acsUrl);
      expect(String(sp.getX509Certificate('encryption')).replace(/\s/g, '')).toBe(certBody);
      if (signRequests) expect(String(sp.getX509Certificate('signing')).replace(/\s/g, '')).toBe(certBody);
      expect(sp.isAuthnRequestSigned()).toBe(signRequests);
      expect(sp.isWantAssertionsSigned()).toBe(true);
      expect(sp.getNameIDFormat()).toContain('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    });
  }
});
