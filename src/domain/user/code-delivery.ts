import { eq } from 'drizzle-orm';
import { instanceDomains } from '../../db/schema/index';
import { permissionDenied } from '../errors';
import type { Scope } from '../execute';
import type { CodeRequest } from './codes';

/**
 * Who may decide how a verification, reset or invitation code travels. Handing the code back
 * (`return_code`) would let a user "verify" an address it does not control, so only administrators
 * with `user.write` on the user's organization may ask for it. A link template chooses where the code
 * is sent to in the mail; from anyone else it must point to a domain of the instance, so that a user
 * cannot make the server mail a phishing link to an address of its choosing.
 */
export async function checkCodeDelivery(scope: Scope, requests: readonly CodeRequest[]): Promise<void> {
  const p = scope.ctx.principal;
  let instanceHosts: Set<string> | undefined;
  for (const { user, delivery } of requests) {
    if (p.canOrg('user.write', user.orgId)) continue;
    if ('return' in delivery) throw permissionDenied('return_code is for administrators with user.write on the organization; the code is sent to the address', 'Errors.User.Code.ReturnDenied');
    const template = delivery.send.urlTemplate;
    if (!template) continue;
    instanceHosts ??= new Set(
      (await scope.tx.select({ domain: instanceDomains.domain }).from(instanceDomains).where(eq(instanceDomains.instanceId, scope.ctx.instanceId))).map(
        (d) => d.domain.toLowerCase(),
      ),
    );
    if (!instanceHosts.has(templateHost(template))) {
      throw permissionDenied('url_template must point to a domain of the instance unless an administrator sets it', 'Errors.User.Code.UrlTemplateDenied');
    }
  }
}

/** The host of a template checked by checkUrlTemplate (placeholders stand for path or query values). */
function templateHost(template: string): string {
  return new URL(template.replaceAll(/\{\{\.?\w+\}\}/g, 'x')).hostname.toLowerCase();
}
