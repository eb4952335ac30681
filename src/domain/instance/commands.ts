import { DEFAULT_INSTANCE_SETTINGS, instanceDomains, instances } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';

export interface AddInstanceInput {
  id: string;
  name: string;
  domain: string;
}

/** Creates the instance row (once per installation; the singleton index enforces it). */
export async function addInstance(work: UnitOfWork, input: AddInstanceInput): Promise<void> {
  work.created('instance', input.id);
  await work.tx.insert(instances).values({
    id: input.id,
    name: input.name,
    domain: input.domain,
    settings: DEFAULT_INSTANCE_SETTINGS,
  });
  await work.tx
    .insert(instanceDomains)
    .values({ domain: input.domain, instanceId: input.id, generated: true, trusted: true });
  work.push({
    aggregateType: 'instance',
    aggregateId: input.id,
    type: 'instance.added',
    payload: { name: input.name },
    resourceOwner: input.id,
  });
  work.push({
    aggregateType: 'instance',
    aggregateId: input.id,
    type: 'instance.domain.added',
    payload: { domain: input.domain, generated: true },
    resourceOwner: input.id,
  });
}
