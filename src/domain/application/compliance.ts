import type { OidcAppConfig } from './model';
import { parseUrl } from '../validate/url';

export interface ComplianceProblem {
  /** stable key, documented in docs/applications.md */
  key: string;
  message: string;
}

type Rule = (c: OidcAppConfig) => ComplianceProblem[];

const implicitResponse = (c: OidcAppConfig) => c.responseTypes.some((t) => t === 'ID_TOKEN' || t === 'ID_TOKEN_TOKEN');
const codeResponse = (c: OidcAppConfig) => c.responseTypes.includes('CODE');
const publicClient = (c: OidcAppConfig) => c.applicationType === 'USER_AGENT' || c.applicationType === 'NATIVE';

/** RFC 8252 §7.3: loopback redirects are plain http on 127.0.0.1, [::1] or localhost. */
export function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
}

const one = (when: boolean, key: string, message: string): ComplianceProblem[] => (when ? [{ key, message }] : []);

/**
 * Each rule names one way the configuration cannot work with the OIDC endpoints as the spec
 * describes them (§2.1, §4.2, §4.3, §5.1). A configuration with problems is still saved: the
 * problems tell the operator what to fix before the flow can succeed.
 */
const RULES: Rule[] = [
  (c) =>
    one(
      codeResponse(c) && !c.grantTypes.includes('AUTHORIZATION_CODE'),
      'OIDC.GrantType.CodeMissing',
      'response type CODE needs the grant type AUTHORIZATION_CODE to exchange the code',
    ),
  (c) =>
    one(
      c.grantTypes.includes('AUTHORIZATION_CODE') && !codeResponse(c),
      'OIDC.ResponseType.CodeMissing',
      'grant type AUTHORIZATION_CODE needs the response type CODE to obtain a code',
    ),
  (c) =>
    one(
      implicitResponse(c) && !c.grantTypes.includes('IMPLICIT'),
      'OIDC.GrantType.ImplicitMissing',
      'response types ID_TOKEN and ID_TOKEN_TOKEN need the grant type IMPLICIT',
    ),
  (c) =>
    one(
      c.grantTypes.includes('IMPLICIT') && !implicitResponse(c),
      'OIDC.ResponseType.ImplicitMissing',
      'grant type IMPLICIT needs the response type ID_TOKEN or ID_TOKEN_TOKEN',
    ),
  (c) =>
    one(
      c.grantTypes.includes('REFRESH_TOKEN') &&
        !c.grantTypes.includes('AUTHORIZATION_CODE') &&
        !c.grantTypes.includes('DEVICE_CODE'),
      'OIDC.GrantType.RefreshWithoutCode',
      'refresh tokens are only issued by the code and device code exchanges: REFRESH_TOKEN needs ' +
        'AUTHORIZATION_CODE or DEVICE_CODE',
    ),
  (c) =>
    one(
      (codeResponse(c) || implicitResponse(c)) && c.redirectUris.length === 0,
      'OIDC.RedirectUris.Missing',
      'the authorization endpoint needs at least one registered redirect URI',
    ),
  (c) =>
    one(
      publicClient(c) && (c.authMethodType === 'BASIC' || c.authMethodType === 'POST'),
      'OIDC.AuthMethod.SecretInPublicClient',
      `a ${c.applicationType} application cannot keep a client secret: use NONE (with PKCE) or PRIVATE_KEY_JWT`,
    ),
  (c) =>
    one(
      c.applicationType === 'USER_AGENT' && c.authMethodType === 'PRIVATE_KEY_JWT',
      'OIDC.AuthMethod.KeyInBrowser',
      'a USER_AGENT application cannot keep a private key: use NONE (with PKCE)',
    ),
  (c) => c.redirectUris.flatMap((u) => redirectProblems(c, u, 'OIDC.RedirectUris', 'redirect URI')),
  (c) =>
    c.postLogoutRedirectUris.flatMap((u) =>
      redirectProblems(c, u, 'OIDC.PostLogoutRedirectUris', 'post-logout redirect URI'),
    ),
];

/** Schemes that run or read something in the browser instead of navigating: never a redirect target. */
const SCRIPT_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

/**
 * Whether the authorization or end-session endpoint may send the browser to this registered URI:
 * the same rules that registration reports as compliance problems are enforced at use, so a
 * configuration saved with a problem never redirects insecurely.
 */
export function redirectUriCompliant(c: OidcAppConfig, uri: string): boolean {
  return redirectProblems(c, uri, 'x', 'x').length === 0;
}

function redirectProblems(c: OidcAppConfig, uri: string, prefix: string, what: string): ComplianceProblem[] {
  const url = parseUrl(uri);
  if (!url) return [];
  const problems: ComplianceProblem[] = [];
  if (url.hash || uri.includes('#')) {
    problems.push({
      key: `${prefix}.Fragment`,
      message: `${what} "${uri}" has a fragment, which OAuth 2.0 forbids (RFC 6749 §3.1.2)`,
    });
  }
  const http = url.protocol === 'http:';
  const https = url.protocol === 'https:';
  if (SCRIPT_SCHEMES.has(url.protocol)) {
    problems.push({
      key: `${prefix}.DangerousScheme`,
      message: `${what} "${uri}" uses the scheme "${url.protocol}", which no application may use`,
    });
  } else if (c.applicationType === 'NATIVE') {
    if (http && !isLoopback(url)) {
      problems.push({
        key: `${prefix}.NativeHttpNotLoopback`,
        message:
          `${what} "${uri}": a NATIVE application may use http only on a loopback address ` +
          '(127.0.0.1, [::1], localhost)',
      });
    }
  } else if (http && !isLoopback(url) && !c.developmentMode) {
    problems.push({
      key: `${prefix}.HttpNotAllowed`,
      message: `${what} "${uri}" uses http on a non-loopback host: use https, or enable development_mode`,
    });
  } else if (!http && !https && !c.developmentMode) {
    problems.push({
      key: `${prefix}.CustomSchemeNotAllowed`,
      message:
        `${what} "${uri}" uses the custom scheme "${url.protocol}", ` +
        'which only NATIVE applications may use (or enable development_mode)',
    });
  }
  return problems;
}

export function complianceProblems(c: OidcAppConfig): ComplianceProblem[] {
  return RULES.flatMap((rule) => rule(c));
}
