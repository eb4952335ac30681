import { execute } from '../../src/domain/execute';
import { addOrg as addOrgIn } from '../../src/domain/org/commands';
import { systemCtx } from './context';
import type { TestServer } from './server';

/** An organization with no administrators, made as the instance would make it. */
export async function addOrg(server: TestServer, name: string): Promise<{ id: string; primaryDomain: string }> {
  const { id, primaryDomain } = await execute(systemCtx(server), (work) =>
    addOrgIn(work, { name, instanceDomain: 'localhost' }),
  );
  return { id, primaryDomain };
}
