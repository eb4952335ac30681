import { slugOf } from '../slug';

/** `<slug-of-name>.<instance domain>`: the generated primary domain of an organization. */
export function generatedOrgDomain(orgName: string, instanceDomain: string): string {
  return `${slugOf(orgName, 'org')}.${instanceDomain}`;
}
