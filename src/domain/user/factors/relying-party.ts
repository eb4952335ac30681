import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { instanceDomains, instances } from '../../../db/schema/index';
import { invalidArgument } from '../../errors';

/** Where WebAuthn credentials are scoped: the relying party id and the origins a browser may use for it. */
export interface RelyingParty {
  /** the RP id: a domain of the instance */
  id: string;
  /** shown by the authenticator: the instance's name */
  name: string;
  /** the origins an answer may come from (clientDataJSON.origin) */
  origins: string[];
}

/**
 * The relying party of a WebAuthn ceremony. Its id is a domain of the instance: the one the request
 * names (which must be the instance's domain or one of its trusted domains), else the instance's
 * domain (the host of PORTCULLIS_EXTERNAL_URL at first start). The expected origins are derived from
 * PORTCULLIS_EXTERNAL_URL and the instance's domains: the external URL's origin, and for each domain
 * the external URL's scheme and port with that domain as host; of these, those whose host is the RP id
 * or a subdomain of it (the WebAuthn rule for an RP id and its origins).
 */
export async function relyingParty(
  db: Db,
  instanceId: string,
  externalUrl: string,
  domain?: string,
): Promise<RelyingParty> {
  const [instance] = await db
    .select({ name: instances.name, domain: instances.domain })
    .from(instances)
    .where(eq(instances.id, instanceId));
  const domains = (
    await db
      .select({ domain: instanceDomains.domain })
      .from(instanceDomains)
      .where(eq(instanceDomains.instanceId, instanceId))
  ).map((d) => d.domain.toLowerCase());
  if (instance) domains.push(instance.domain.toLowerCase());
  const id = (domain?.trim() || instance?.domain || new URL(externalUrl).hostname).toLowerCase();
  if (!domains.includes(id))
    throw invalidArgument('Errors.WebAuthN.Domain.Unknown', 'domain must be a domain of the instance');
  return { id, name: instance?.name || 'Portcullis', origins: originsFor(id, externalUrl, domains) };
}

/** The origins an answer for RP id `rpId` may come from (see relyingParty). */
function originsFor(rpId: string, externalUrl: string, domains: string[]): string[] {
  const external = new URL(externalUrl);
  const port = external.port ? `:${external.port}` : '';
  const candidates = [external.origin, ...domains.map((d) => `${external.protocol}//${d}${port}`)];
  const fits = (origin: string) => {
    const host = new URL(origin).hostname;
    return host === rpId || host.endsWith(`.${rpId}`);
  };
  return [...new Set(candidates.filter(fits))];
}

/**
 * The RP id for a page reached under `host` (the hosted login): the host when it is a domain of the
 * instance, else undefined (the instance's domain).
 */
export async function domainOfHost(db: Db, instanceId: string, host: string): Promise<string | undefined> {
  const name = host.toLowerCase();
  const [known] = await db
    .select({ domain: instanceDomains.domain })
    .from(instanceDomains)
    .where(and(eq(instanceDomains.instanceId, instanceId), eq(instanceDomains.domain, name)));
  return known ? name : undefined;
}
