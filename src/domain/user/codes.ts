import { randomInt } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { hashSecret, verifySecret } from '../../crypto/secrets';
import { userCodes } from '../../db/schema/index';
import { enqueueNotifications } from '../../notify/outbox';
import type { MessageInput, NotificationKind } from '../../notify/templates';
import { invalidArgument } from '../errors';
import { CODE_ADDED } from '../events/types/user';
import type { UnitOfWork } from '../execute';
import type { UserWithOrg } from './access';
import { checkCodeDelivery } from './code-delivery';

export type CodeKind = NotificationKind | 'PHONE_VERIFICATION';

/** How long each kind of code is valid. */
const LIFETIME_SECONDS: Record<CodeKind, number> = {
  EMAIL_VERIFICATION: 24 * 3600,
  PHONE_VERIFICATION: 3600,
  INVITATION: 72 * 3600,
  PASSWORD_RESET: 3600,
  PASSKEY_REGISTRATION: 24 * 3600,
};

// Declared with the event types; a kind without its event (or the reverse) is a compile error here.
const EVENT: { readonly [K in CodeKind]: (typeof CODE_ADDED)[K] } = CODE_ADDED;

// Letters and digits that cannot be mistaken for each other when typed from an email.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function generateCode(length = 8): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** Send the code through the outbox, or hand it back to the caller. */
export type CodeDelivery = { send: { urlTemplate?: string; applicationName?: string } } | { return: true };

export interface CodeRequest {
  user: UserWithOrg;
  kind: CodeKind;
  delivery: CodeDelivery;
  target: string;
  extraPayload?: { applicationName?: string };
}

/**
 * Issues a code of one kind for a user, replacing any earlier one: stores its keyed hash, writes the
 * rendered message into the outbox when it is to be sent, and records the event. Returns the code
 * when the caller asked for it back.
 */
export async function issueCode(
  work: UnitOfWork,
  user: UserWithOrg,
  kind: CodeKind,
  delivery: CodeDelivery,
  target: string,
  extraPayload: { applicationName?: string } = {},
): Promise<string | undefined> {
  const [code] = await issueCodes(work, [{ user, kind, delivery, target, extraPayload }], { replace: true });
  return code;
}

/**
 * Issues many codes with one insert into user_codes and one into the outbox (the CreateUser batch).
 * `replace: false` is for users created in this transaction, who cannot have a code yet.
 */
export async function issueCodes(
  work: UnitOfWork,
  requests: CodeRequest[],
  opts: { replace: boolean },
): Promise<(string | undefined)[]> {
  if (!requests.length) return [];
  await checkCodeDelivery(work, requests, { newUsers: !opts.replace });
  const now = new Date();
  const rows: (typeof userCodes.$inferInsert)[] = [];
  const messages: MessageInput[] = [];
  const codes = requests.map(({ user, kind, delivery, target, extraPayload }) => {
    const code = generateCode();
    const expiresAt = new Date(now.getTime() + LIFETIME_SECONDS[kind] * 1000);
    const urlTemplate = 'send' in delivery ? delivery.send.urlTemplate : undefined;
    rows.push({ userId: user.id, kind, codeHash: hashSecret(code), urlTemplate, target, expiresAt, createdAt: now });
    if ('send' in delivery && kind !== 'PHONE_VERIFICATION') {
      messages.push({
        kind,
        code,
        userId: user.id,
        orgId: user.orgId,
        displayName: user.displayName || user.username,
        email: target,
        urlTemplate,
        loginName: `${user.username}@${user.primaryDomain}`,
        applicationName: delivery.send.applicationName,
        expiresAt,
      });
    }
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: EVENT[kind],
      payload: { expiry: expiresAt.toISOString(), urlTemplate, codeReturned: 'return' in delivery, ...extraPayload },
      resourceOwner: user.orgId,
    });
    return 'return' in delivery ? code : undefined;
  });
  const insert = work.tx.insert(userCodes).values(rows);
  if (opts.replace) {
    await insert.onConflictDoUpdate({
      target: [userCodes.userId, userCodes.kind],
      set: {
        codeHash: sql`excluded.code_hash`,
        urlTemplate: sql`excluded.url_template`,
        target: sql`excluded.target`,
        expiresAt: sql`excluded.expires_at`,
        createdAt: sql`excluded.created_at`,
      },
    });
  } else {
    await insert;
  }
  await enqueueNotifications(work.tx, messages);
  return codes;
}

/** The live code of a kind, if any (for resending with the same settings). */
export async function currentCode(work: UnitOfWork, userId: string, kind: CodeKind) {
  const [row] = await work.tx
    .select()
    .from(userCodes)
    .where(and(eq(userCodes.userId, userId), eq(userCodes.kind, kind)));
  return row;
}

/**
 * Checks a code and uses it up. A wrong, expired or missing code is INVALID_ARGUMENT naming the field;
 * the code then stays, so a typo can be corrected.
 */
export async function consumeCode(
  work: UnitOfWork,
  userId: string,
  kind: CodeKind,
  code: string,
  field: string,
): Promise<{ target: string | null }> {
  if (!code) throw invalidArgument('Errors.User.Code.Empty', `${field} is required`);
  const row = await currentCode(work, userId, kind);
  if (!row || !verifySecret(row.codeHash, code.trim().toUpperCase()) || row.expiresAt.getTime() < Date.now()) {
    throw invalidArgument('Errors.User.Code.Invalid', `${field} is invalid or expired`);
  }
  await work.tx.delete(userCodes).where(and(eq(userCodes.userId, userId), eq(userCodes.kind, kind)));
  return { target: row.target };
}
