import { createGuardrails, generate } from 'otplib';

// Imported secrets may be 10 bytes (as the server accepts them).
const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 10 });

/** The TOTP code of `secret` (base32, or the raw key) `steps` 30-second steps from now. */
export function totpCode(secret: string | Uint8Array, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30, guardrails: GUARDRAILS });
}
