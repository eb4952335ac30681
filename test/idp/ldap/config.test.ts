import { describe, expect, it } from 'vitest';
import { DomainError, fieldOf } from '../../../src/domain/errors';
import { checkLdapConfig, LDAP_DEFAULT_MAPPING } from '../../../src/domain/idp/ldap/config';

// A throwaway self-signed certificate (its key was discarded), only for parsing.
const CA = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR+gAwIBAgIUI8f+99IxJU6AwljvFZcec0oGrnAwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjYyMzAwMzJaFw0zNjExMjMyMzAw
MzJaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AAQMoL7Anr5a6i+9v+igrSFpCR9WyseciwRuTjczR7JvKwOR4iaLTCMbtIdKUJND
B32EIwkvgx8AmU28Q+kmDU7do1MwUTAdBgNVHQ4EFgQUiivs9m7cyHo8s5hOTAZ4
jpUpWGMwHwYDVR0jBBgwFoAUiivs9m7cyHo8s5hOTAZ4jpUpWGMwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBUlXezpKz6IMv/j73Kk5Ft93sn/ly8
xizbvj6KDr+nIgIgCNWamKJdqPWJgvomnWdGnR2rvxcG1PdAnFoUcwMjz8w=
-----END CERTIFICATE-----`;

const valid = {
  servers: ['ldap://ldap.example.org', 'ldaps://ldap2.example.org:636/'],
  startTls: true,
  baseDn: 'ou=people,dc=example,dc=org',
  bindDn: 'cn=portcullis,ou=services,dc=example,dc=org',
  userObjectClasses: ['inetOrgPerson'],
  userFilters: ['uid', 'mail'],
  idAttribute: 'entryUUID',
  timeoutSeconds: 5,
};

/** The API field a refused config is blamed on. */
function fieldRefused(input: unknown): string | undefined {
  try {
    checkLdapConfig(input);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid_argument');
    expect((err as DomainError).key).toBe('Errors.IdP.Ldap.InvalidConfig');
    return fieldOf(err as DomainError);
  }
  throw new Error('expected the config to be refused');
}

describe('checkLdapConfig', () => {
  it('accepts a valid config, normalises server URLs and fills the default mapping', () => {
    const c = checkLdapConfig({ ...valid, mapping: { nickName: 'displayName', phone: 'mobile' } });
    expect(c.servers).toEqual(['ldap://ldap.example.org', 'ldaps://ldap2.example.org:636']);
    expect(c.mapping).toEqual({ ...LDAP_DEFAULT_MAPPING, nickName: 'displayName', phone: 'mobile' });
    expect(checkLdapConfig({ ...valid, timeoutSeconds: undefined, startTls: undefined })).toMatchObject({
      timeoutSeconds: 10,
      startTls: false,
    });
  });

  it('refuses bad input naming the API field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ servers: [] }, 'servers'],
      [{ servers: 'ldap://x' }, 'servers'],
      [{ servers: ['http://ldap.example.org'] }, 'servers[0]'],
      [{ servers: ['ldap://ok', 'not a url'] }, 'servers[1]'],
      [{ servers: ['ldap://ldap.example.org/dc=example,dc=org?uid'] }, 'servers[0]'],
      [{ servers: ['ldap://admin:pw@ldap.example.org'] }, 'servers[0]'],
      [{ servers: Array(11).fill('ldap://x') }, 'servers'],
      [{ startTls: 'yes' }, 'start_tls'],
      [{ baseDn: '' }, 'base_dn'],
      [{ baseDn: 'example.org' }, 'base_dn'],
      [{ bindDn: undefined }, 'bind_dn'],
      [{ userObjectClasses: [] }, 'user_object_classes'],
      [{ userFilters: [] }, 'user_filters'],
      [{ userFilters: ['uid', 'mail)(uid=*'] }, 'user_filters[1]'],
      [{ idAttribute: 'entry UUID' }, 'id_attribute'],
      [{ timeoutSeconds: 0 }, 'timeout_seconds'],
      [{ timeoutSeconds: 61 }, 'timeout_seconds'],
      [{ timeoutSeconds: 1.5 }, 'timeout_seconds'],
      [{ rootCaPem: 'not a certificate' }, 'root_ca_pem'],
      [{ rootCaPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'root_ca_pem'],
      [{ mapping: { givenName: 'given name' } }, 'mapping.given_name'],
      [{ mapping: { password: 'userPassword' } }, 'mapping.password'],
      [{ mapping: { id: 'uid' } }, 'mapping.id'],
    ];
    for (const [over, field] of cases) expect(fieldRefused({ ...valid, ...over }), field).toBe(field);
    expect(() => checkLdapConfig(null)).toThrow(DomainError);
    expect(() => checkLdapConfig('ldap://x')).toThrow(DomainError);
  });

  it('takes a PEM CA that parses', () => {
    expect(checkLdapConfig({ ...valid, rootCaPem: CA }).rootCaPem).toBe(CA);
  });
});
