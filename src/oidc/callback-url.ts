/**
 * Where the browser goes once a session (or an error) answers an auth request: the authorization
 * endpoint's callback, which sends the answer to the client (`callbackEndpoint` in authorize.ts).
 */
export const callbackUrl = (id: string) => `/oauth/v2/authorize/callback?id=${encodeURIComponent(id)}`;
