/**
 * Where the browser goes once a session (or an error) answers an auth request: the authorization
 * endpoint's callback, which sends the answer to the client (`callbackEndpoint` in src/oidc/authorize.ts).
 * It is part of an auth request's life, not of one transport: the hosted login, prompt=none and
 * OIDCService.CreateCallback (for custom login UIs) all hand it out.
 */
export const callbackUrl = (id: string) => `/oauth/v2/authorize/callback?id=${encodeURIComponent(id)}`;
