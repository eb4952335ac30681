import { createPrivateKey, KeyObject, sign } from 'node:crypto';
import type { SigningKey } from '../../../crypto/keys/signing';

// The KeyObject of a loaded key is the key in another form: kept for as long as the key object lives.
const keyObjects = new WeakMap<object, KeyObject>();

function keyObjectOf(key: SigningKey): KeyObject {
  let ko = keyObjects.get(key.key);
  if (!ko) {
    ko = KeyObject.from(key.key);
    if (ko.type !== 'private') ko = createPrivateKey(ko.export({ format: 'jwk' }) as never);
    keyObjects.set(key.key, ko);
  }
  return ko;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * Signs a compact JWS synchronously with node:crypto. On the machine grants' hot path this avoids
 * the WebCrypto round trip through the thread pool; with one worker process per core a synchronous
 * signature is the cheapest way to use the CPU. Same output as jose's SignJWT.
 */
export function signCompact(key: SigningKey, claims: Record<string, unknown>, typ = 'JWT'): string {
  const input = `${b64({ alg: key.alg, kid: key.kid, typ })}.${b64(claims)}`;
  const data = Buffer.from(input);
  const ko = keyObjectOf(key);
  let sig: Buffer;
  switch (key.alg) {
    case 'RS256':
      sig = sign('sha256', data, ko);
      break;
    case 'ES256':
      sig = sign('sha256', data, { key: ko, dsaEncoding: 'ieee-p1363' });
      break;
    case 'EdDSA':
      sig = sign(null, data, ko);
      break;
    default:
      throw new Error(`unsupported signing algorithm ${key.alg}`);
  }
  return `${input}.${sig.toString('base64url')}`;
}
