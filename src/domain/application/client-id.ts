/**
 * Client ids are `<application id>@<project slug>`: unique because the application id is, and
 * readable in logs and consent screens. The slug is taken when the application is created; renaming
 * the project later does not change existing client ids.
 */
export function newClientId(applicationId: string, projectName: string): string {
  return `${applicationId}@${projectSlug(projectName)}`;
}

export function projectSlug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || 'project'
  );
}
