import { describe, expect, it } from 'vitest';
import { configOf, KINDS, valuesOf } from '../../src/console/app/pages/idp-kinds';

/** The console's declaration of the provider kinds: the form's values to the API's configuration and back. */
describe('console: identity provider kinds', () => {
  it('sends the first filled choice of a proto oneof, else the last (Entra tenant, SAML metadata)', () => {
    const azure = valuesOf('azureAd');
    expect(configOf('azureAd', { ...azure, tenant_type: '1' }).tenant).toEqual({ case: 'tenantType', value: 1 });
    expect(configOf('azureAd', { ...azure, tenant_id: 'abc' }).tenant).toEqual({ case: 'tenantId', value: 'abc' });
    const saml = valuesOf('saml');
    expect(configOf('saml', { ...saml, metadata_xml: '<x/>' }).metadata).toEqual({
      case: 'metadataXml',
      value: '<x/>',
    });
    expect(configOf('saml', { ...saml, metadata_url: 'https://idp/m' }).metadata).toEqual({
      case: 'metadataUrl',
      value: 'https://idp/m',
    });
  });

  it('shows a stored configuration without its secrets and sends back what the form does not show', () => {
    const stored = {
      $typeName: 'portcullis.idp.v2.LDAPConfig',
      servers: ['ldap://a', 'ldap://b'],
      startTls: true,
      baseDn: 'dc=x',
      bindPassword: '',
      timeoutSeconds: 7,
      mapping: { id: 'uid' },
    };
    const values = valuesOf('ldap', stored);
    expect(values).toMatchObject({
      servers: 'ldap://a ldap://b',
      start_tls: true,
      bind_password: '',
      timeout_seconds: '7',
    });
    const sent = configOf('ldap', { ...values, base_dn: 'dc=y' }, stored);
    expect(sent).toMatchObject({
      servers: ['ldap://a', 'ldap://b'],
      baseDn: 'dc=y',
      timeoutSeconds: 7,
      mapping: { id: 'uid' },
    });
    expect(sent).not.toHaveProperty('$typeName');
    // every kind declares each proto field once
    for (const { fields } of Object.values(KINDS)) expect(new Set(fields.map((f) => f.proto)).size).toBe(fields.length);
  });
});
