import { sql } from 'drizzle-orm';
import type { SessionFactor } from '../../src/db/schema/index';
import type { TestServer } from './server';

/*
 * States no API of the login policy produces: a ready factor of a user and a factor check made at a
 * given time (a check older than the policy's lifetime). The factor RPCs (RegisterTOTP, passkeys,
 * recovery codes) and the session checks make the same rows; tests of the policy that need a factor
 * without going through its set-up, or a check in the past, write them here.
 */

/** A ready factor of the user (type totp | webauthn | otp_email | otp_sms); returns its id. */
export async function addReadyFactor(
  server: TestServer,
  user: { id: string; orgId: string },
  type: 'totp' | 'webauthn' | 'otp_email' | 'otp_sms',
  opts: { passwordless?: boolean } = {},
): Promise<string> {
  const id = `f_${type}_${Math.random().toString(36).slice(2)}`;
  await server.app.database.db.execute(
    sql`insert into user_factors (id, user_id, org_id, type, state, passwordless, secret, credential_id)
        values (${id}, ${user.id}, ${user.orgId}, ${type}, 'ready', ${opts.passwordless ?? false},
                ${type === 'totp' ? 'JBSWY3DPEHPK3PXP' : null}, ${type === 'webauthn' ? id : null})`,
  );
  return id;
}

/** One unused recovery code (its hash is never checked by these tests). */
export async function addRecoveryCode(server: TestServer, userId: string): Promise<void> {
  const id = `rc_${Math.random().toString(36).slice(2)}`;
  await server.app.database.db.execute(
    sql`insert into recovery_codes (id, user_id, code_hash) values (${id}, ${userId}, ${id})`,
  );
}

/** Marks `factor` checked at `at` in every session of the user, with the amr such a check gives. */
export async function setFactorChecked(
  server: TestServer,
  userId: string,
  factor: SessionFactor,
  at: Date,
  amr: string[],
): Promise<void> {
  const checks = JSON.stringify({ [factor]: { at: at.toISOString() } });
  await server.app.database.db.execute(
    sql`update sessions set factor_checks = factor_checks || ${checks}::jsonb, amr = ${`{${amr.join(',')}}`}::text[]
        where user_id = ${userId}`,
  );
}
