import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Signing keys of the OpenID Provider. Lifecycle: INITIAL (published in the JWKS, not signing yet) →
 * ACTIVE (the one key that signs) → INACTIVE (still published until `publishedUntil`, when every
 * token it signed has expired) → row deleted. The private key is encrypted with the master key.
 */
export const webKeys = pgTable(
  'web_keys',
  {
    /** the JWK `kid` */
    id: text('id').primaryKey(),
    /** RS256 | ES256 | EdDSA */
    algorithm: text('algorithm').notNull(),
    /** INITIAL | ACTIVE | INACTIVE */
    state: text('state').notNull(),
    publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
    /** AES-256-GCM of the private JWK under the master key: `v1.<iv>.<tag>.<ciphertext>` (base64url) */
    privateKeyEncrypted: text('private_key_encrypted').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    activatedAt: timestamp('activated_at', { withTimezone: true, mode: 'date' }),
    /** INACTIVE keys: removed from the JWKS after this time */
    publishedUntil: timestamp('published_until', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('web_keys_state_idx').on(t.state)],
);
