import { and, count, eq, gt, inArray, min, sql } from 'drizzle-orm';
import { instanceDomains, notifications } from '../../db/schema/index';
import { LimitError, permissionDenied } from '../errors';
import type { UnitOfWork } from '../execute';
import type { CodeRequest } from './codes';

/**
 * Who may decide how a verification, reset or invitation code travels. Handing the code back
 * (`return_code`) would let a user "verify" an address it does not control, so only administrators
 * with `user.write` on the user's organization may ask for it. A link template chooses where the code
 * is sent to in the mail; from anyone else it must lead to the server's own origin or to https on a
 * domain of the instance (no other scheme, no other port), so that a user cannot make the server mail
 * a phishing link to an address of its choosing, nor to another service on one of its hosts.
 */
export async function checkCodeDelivery(
  work: UnitOfWork,
  requests: readonly CodeRequest[],
  opts: { newUsers: boolean },
): Promise<void> {
  await throttleMail(work, requests, opts);
  const p = work.ctx.principal;
  let instanceHosts: Set<string> | undefined;
  for (const { user, delivery } of requests) {
    if (p.canOrg('user.write', user.orgId)) continue;
    if ('return' in delivery)
      throw permissionDenied(
        'return_code is for administrators with user.write on the organization; the code is sent to the address',
        'Errors.User.Code.ReturnDenied',
      );
    const template = delivery.send.urlTemplate;
    if (!template) continue;
    instanceHosts ??= new Set(
      (
        await work.tx
          .select({ domain: instanceDomains.domain })
          .from(instanceDomains)
          .where(eq(instanceDomains.instanceId, work.ctx.instanceId))
      ).map((d) => d.domain.toLowerCase()),
    );
    if (!templateAllowed(template, instanceHosts, work.ctx.origin)) {
      throw permissionDenied(
        "url_template must lead to this server's own address or to https on a domain of the instance " +
          '(default port) unless an administrator sets it',
        'Errors.User.Code.UrlTemplateDenied',
      );
    }
  }
}

/** A template checked by checkUrlTemplate (placeholders stand for path or query values) a user may choose. */
function templateAllowed(template: string, instanceHosts: Set<string>, origin: string | undefined): boolean {
  const url = new URL(template.replaceAll(/\{\{\.?\w+\}\}/g, 'x'));
  if (origin && url.origin === origin) return true;
  return url.protocol === 'https:' && url.port === '' && instanceHosts.has(url.hostname.toLowerCase());
}

/** Mails with a code per user, and per recipient address, within MAIL_WINDOW_SECONDS. */
const MAIL_LIMIT_PER_USER = 5;
const MAIL_LIMIT_PER_RECIPIENT = 10;
const MAIL_WINDOW_SECONDS = 15 * 60;

/**
 * Verification, reset and invitation mails are throttled per user and per recipient address, so
 * that nobody — a user resending its own code, a visitor registering accounts with someone else's
 * address, a script calling ResendEmailCode — can make the server mail-bomb an inbox or burn the
 * sender's reputation. Over the limit the answer is RESOURCE_EXHAUSTED (HTTP 429) with Retry-After.
 * The first code of a user created in this command counts against its recipient only.
 */
async function throttleMail(
  work: UnitOfWork,
  requests: readonly CodeRequest[],
  opts: { newUsers: boolean },
): Promise<void> {
  const mails = requests.filter((r) => 'send' in r.delivery && r.kind !== 'PHONE_VERIFICATION');
  if (!mails.length) return;
  const since = new Date(Date.now() - MAIL_WINDOW_SECONDS * 1000);
  const retryAfter = (oldest: Date | string | null) =>
    Math.max(1, Math.ceil(MAIL_WINDOW_SECONDS - (Date.now() - new Date(oldest ?? Date.now()).getTime()) / 1000));
  if (!opts.newUsers) {
    const userIds = [...new Set(mails.map((m) => m.user.id))];
    const perUser = await work.tx
      .select({ userId: notifications.userId, n: count(), oldest: min(notifications.createdAt) })
      .from(notifications)
      .where(and(inArray(notifications.userId, userIds), gt(notifications.createdAt, since)))
      .groupBy(notifications.userId);
    const over = perUser.find((r) => r.n >= MAIL_LIMIT_PER_USER);
    if (over) {
      throw new LimitError(
        'Errors.User.Code.TooManyMails',
        `too many mails to this user; try again in ${retryAfter(over.oldest)} seconds`,
        retryAfter(over.oldest),
      );
    }
  }
  const recipients = [...new Set(mails.map((m) => m.target.toLowerCase()))];
  const lower = sql<string>`lower(${notifications.recipient})`;
  const perRecipient = await work.tx
    .select({ recipient: lower, n: count(), oldest: min(notifications.createdAt) })
    .from(notifications)
    .where(and(inArray(lower, recipients), gt(notifications.createdAt, since)))
    .groupBy(lower);
  const sending = new Map<string, number>();
  for (const r of recipients) sending.set(r, mails.filter((m) => m.target.toLowerCase() === r).length);
  const full = perRecipient.find((r) => r.n + (sending.get(r.recipient) ?? 0) > MAIL_LIMIT_PER_RECIPIENT);
  if (full) {
    throw new LimitError(
      'Errors.User.Code.TooManyMails',
      `too many mails to this address; try again in ${retryAfter(full.oldest)} seconds`,
      retryAfter(full.oldest),
    );
  }
}
