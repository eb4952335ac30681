import { hkdfSync } from 'node:crypto';

// Keyed by the master key itself: the same key and purpose derive the same key, whichever server asks.
const cache = new WeakMap<Buffer, Map<string, Buffer>>();

/**
 * A 256-bit key for one purpose, derived from the master key with HKDF-SHA256 (`purpose` is the info):
 * each use of the master key gets its own key, so no two mechanisms ever share one. Derived once per
 * master key and purpose, as it is read on hot paths.
 */
export function derivedKey(masterKey: Buffer, purpose: string): Buffer {
  let byPurpose = cache.get(masterKey);
  if (!byPurpose) {
    byPurpose = new Map();
    cache.set(masterKey, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, 32));
    byPurpose.set(purpose, key);
  }
  return key;
}
