import type { OidcClient } from '../domain/oidc/clients';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Exact string comparison with the registered URIs. Only native apps' loopback redirects
 * (http://127.0.0.1, [::1], localhost) may use any port (RFC 8252 §7.3).
 */
export function redirectUriAllowed(client: OidcClient, uri: string, registered: string[]): boolean {
  if (registered.includes(uri)) return true;
  if (client.oidc?.applicationType !== 'NATIVE') return false;
  const u = parse(uri);
  if (u?.protocol !== 'http:' || !LOOPBACK.has(u.hostname)) return false;
  return registered.some((r) => {
    const ru = parse(r);
    if (ru?.protocol !== 'http:' || ru.hostname !== u.hostname) return false;
    ru.port = '';
    const uu = new URL(u.toString());
    uu.port = '';
    return ru.toString() === uu.toString();
  });
}

function parse(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

/** A redirect URI we can send the browser to: absolute, no fragment. */
export function redirectUriWellFormed(uri: string): boolean {
  const u = parse(uri);
  return !!u && !uri.includes('#') && u.protocol !== 'javascript:' && u.protocol !== 'data:';
}
