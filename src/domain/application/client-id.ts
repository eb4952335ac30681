import { slugOf } from '../slug';

/**
 * Client ids are `<application id>@<project slug>`: unique because the application id is, and
 * readable in logs and consent screens. The slug is taken when the application is created; renaming
 * the project later does not change existing client ids.
 */
export function newClientId(applicationId: string, projectName: string): string {
  return `${applicationId}@${slugOf(projectName, 'project')}`;
}
