/**
 * The protocol code of upstream identity providers, loaded when a provider of its kind is first used.
 * node-saml, ldapts and openid-client, with the XML, ASN.1 and HTTP libraries under them, would
 * otherwise take some megabytes in every server process from its start, and many instances never
 * sign anyone in through an upstream provider.
 */
export const samlLogin = () => import('./saml/login');
export const samlMetadata = () => import('./saml/metadata');
export const ldapAuthentication = () => import('./ldap/authenticate');
export const oauthFlow = () => import('./oauth/flow');
