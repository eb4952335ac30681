/** The Authorization header of client_secret_basic (RFC 6749 §2.3.1: both parts form-encoded first). */
export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
