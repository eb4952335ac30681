/** `<slug-of-name>.<instance domain>`: the generated primary domain of an organization. */
export function generatedOrgDomain(orgName: string, instanceDomain: string): string {
  const slug =
    orgName
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'org';
  return `${slug}.${instanceDomain}`;
}
