import { eq } from 'drizzle-orm';
import { instances, orgs } from '../../db/schema/index';
import { getInstanceSettings } from '../instance/settings';
import type { Source } from '../context';

/**
 * Whether visitors may create an account in this organization (null: the instance's default one)
 * through the hosted login. The organization's own policy decides when it has one; otherwise the
 * default organization follows the instance's `registration_allowed` and every other organization
 * says no — so naming an organization in the `urn:service:iam:org:id:` scope never lets a stranger
 * join it unless it chose so.
 */
export async function registrationAllowed(src: Source, instanceId: string, orgId: string | null): Promise<boolean> {
  const [row] = await src.db
    .select({ id: orgs.id, allow: orgs.allowRegistration, state: orgs.state, defaultOrgId: instances.defaultOrgId })
    .from(instances)
    .innerJoin(orgs, orgId === null ? eq(orgs.id, instances.defaultOrgId) : eq(orgs.id, orgId))
    .where(eq(instances.id, instanceId));
  if (!row || row.state !== 'ACTIVE') return false;
  if (row.allow !== null) return row.allow;
  return row.defaultOrgId === row.id && (await getInstanceSettings(src, instanceId)).registrationAllowed;
}
