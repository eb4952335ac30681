import { and, eq, ne } from 'drizzle-orm';
import { projects } from '../../db/schema/index';
import { invalidArgument } from '../errors';
import type { UnitOfWork } from '../execute';
import type { InstanceSettings } from './settings';

const invalid = (msg: string) => invalidArgument('Errors.Instance.Settings.Invalid', msg);

/**
 * Clients identified by a metadata document have no application row, so the project they act in is
 * an instance setting of its own (not the dynamic registration project: an operator may accept one
 * and not the other, or keep the two populations apart). Required and existing while the documents
 * are on.
 */
export async function checkClientMetadataDocumentsProject(work: UnitOfWork, s: InstanceSettings): Promise<void> {
  if (typeof s.clientIdMetadataDocuments !== 'boolean') throw invalid('client_id_metadata_documents must be a bool');
  if (!s.clientIdMetadataDocuments) return;
  if (!s.clientIdMetadataDocumentsProjectId)
    throw invalid('client_id_metadata_documents_project_id is required while client_id_metadata_documents is on');
  const [row] = await work.tx
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, s.clientIdMetadataDocumentsProjectId), ne(projects.state, 'REMOVED')));
  if (!row)
    throw invalid(
      `client_id_metadata_documents_project_id: project "${s.clientIdMetadataDocumentsProjectId}" not found`,
    );
}
