import {
  ApiAuthMethodType,
  OidcApplicationType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
} from '../../../../gen/portcullis/application/v2/application_pb';
import type { Words } from '../i18n';

export type Kind = 'web' | 'browser' | 'native' | 'api' | 'saml';

/**
 * The kinds of application the wizard offers and their defaults: a server-side web app keeps a secret;
 * a browser or native app cannot, so it authenticates with PKCE alone (RFC 8252, OAuth 2.0 for
 * browser-based apps); only apps on a device that keeps a refresh token safely get one by default.
 */
export const OIDC_DEFAULTS = {
  web: {
    applicationType: OidcApplicationType.WEB,
    authMethodType: OidcAuthMethodType.BASIC,
    grantTypes: [OidcGrantType.AUTHORIZATION_CODE, OidcGrantType.REFRESH_TOKEN],
    responseTypes: [OidcResponseType.CODE],
    example: 'https://app.example.com/callback',
  },
  browser: {
    applicationType: OidcApplicationType.USER_AGENT,
    authMethodType: OidcAuthMethodType.NONE,
    grantTypes: [OidcGrantType.AUTHORIZATION_CODE],
    responseTypes: [OidcResponseType.CODE],
    example: 'https://spa.example.com/',
  },
  native: {
    applicationType: OidcApplicationType.NATIVE,
    authMethodType: OidcAuthMethodType.NONE,
    grantTypes: [OidcGrantType.AUTHORIZATION_CODE, OidcGrantType.REFRESH_TOKEN],
    responseTypes: [OidcResponseType.CODE],
    example: 'com.example.app:/callback',
  },
} as const;

export const KINDS: Kind[] = ['web', 'browser', 'native', 'api', 'saml'];

export function kindLabel(t: Words, kind: Kind): string {
  return { web: t.appWeb, browser: t.appBrowser, native: t.appNative, api: t.appApi, saml: t.appSaml }[kind];
}

export const API_AUTH = [ApiAuthMethodType.BASIC, ApiAuthMethodType.PRIVATE_KEY_JWT];

/** Lines of a textarea as a list: one URI per line, blanks dropped. */
export const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
