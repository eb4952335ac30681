import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../../../crypto/keys/derived-key';

/** A nonce is issued for one window of this many seconds and accepted in that window and the next. */
const DPOP_NONCE_WINDOW_S = 300;

const nonceKey = (masterKey: Buffer) => derivedKey(masterKey, 'portcullis dpop nonce v1');

function nonceOf(masterKey: Buffer, window: number): string {
  return createHmac('sha256', nonceKey(masterKey)).update(`dpop-nonce:${window}`).digest('base64url');
}

const windowAt = (nowMs: number) => Math.floor(nowMs / 1000 / DPOP_NONCE_WINDOW_S);

/**
 * RFC 9449 §8: the server's current DPoP nonce. Stateless: an HMAC of the time window under a key
 * derived from the master key, so every replica issues and accepts the same nonces without storing
 * them. Replay is stopped by the proof's `jti`, not by the nonce; the nonce only bounds how far ahead
 * a client can make proofs (it cannot know a future window's nonce).
 */
export function currentDpopNonce(masterKey: Buffer, nowMs = Date.now()): string {
  return nonceOf(masterKey, windowAt(nowMs));
}

/** Whether a nonce is the current window's or the previous one's (a nonce lives 5 to 10 minutes). */
export function isValidDpopNonce(masterKey: Buffer, nonce: unknown, nowMs = Date.now()): boolean {
  // the shape first: timingSafeEqual needs buffers of one length, and multi-byte characters would differ
  if (typeof nonce !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(nonce)) return false;
  const given = Buffer.from(nonce);
  const w = windowAt(nowMs);
  return [w, w - 1].some((win) => timingSafeEqual(given, Buffer.from(nonceOf(masterKey, win))));
}
