import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { projects } from '../../../db/schema/index';
import { getInstanceSettings } from '../../instance/settings';
import { isDevelopmentIssuer } from '../../outbound/development';
import { findClient, type OidcClient, projectClientIds } from '../clients';
import { DocumentCache, cacheSeconds } from './cache';
import { type DocumentClient, readDocument } from './document';
import { fetchMetadataDocument } from './fetch';
import { MetadataProblem } from './problem';
import { checkMetadataUrl, isMetadataDocumentUrl } from './url';
import { perServer } from '../../../deps';
import type { Source } from '../../context';

/**
 * Where clients are looked up: the server (its database and its caches), the instance (its settings) and
 * the issuer (development mode).
 */
export interface ClientSource extends Source {
  instanceId: string;
  issuer: string;
}

/** The client, or why there is none (shown on the authorize error page or as invalid_client). */
export type ClientLookup = { client: OidcClient; problem?: undefined } | { client?: undefined; problem: string };

/** Each server fetches and keeps the documents on its own, as each replica does. */
const documents = perServer(() => new DocumentCache<DocumentClient>());

/**
 * The client behind a client_id presented at authorize, PAR, token, revocation: a registered
 * application, or — when the instance accepts client ID metadata documents — the client described
 * by the document at the URL the client_id is. Such a client lives only in memory; the grants,
 * codes and tokens issued to it carry the URL as their client id (and application id).
 */
export async function resolveClient(source: ClientSource, clientId: string): Promise<ClientLookup> {
  if (!isMetadataDocumentUrl(clientId)) {
    const client = await findClient(source, clientId);
    return client ? { client } : { problem: 'unknown or inactive client' };
  }
  const settings = await getInstanceSettings(source, source.instanceId);
  if (!settings.clientIdMetadataDocuments)
    return { problem: 'this server does not accept client ID metadata documents: use a registered client_id' };
  try {
    const development = isDevelopmentIssuer(source.issuer);
    const url = checkMetadataUrl(clientId, development);
    const doc = await source.runtime.get(documents).get(clientId, async () => {
      const fetched = await fetchMetadataDocument(url, development);
      return { value: readDocument(clientId, fetched.json), ttlS: cacheSeconds(fetched.cacheControl) };
    });
    return await documentClient(source.db, clientId, doc, settings.clientIdMetadataDocumentsProjectId);
  } catch (err) {
    if (err instanceof MetadataProblem) return { problem: err.message };
    throw err;
  }
}

/** The in-memory client: the document's redirect URIs and name, the instance's project for the rest. */
async function documentClient(db: Db, url: string, doc: DocumentClient, projectId: string): Promise<ClientLookup> {
  const [project] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, projectId), ne(projects.state, 'REMOVED')));
  if (!project) return { problem: 'the project for clients identified by metadata documents no longer exists' };
  return {
    client: {
      applicationId: url,
      clientId: url,
      projectId: project.id,
      orgId: project.orgId,
      name: doc.name,
      type: 'OIDC',
      active: project.state === 'ACTIVE',
      secretHash: null,
      authMethod: 'NONE',
      oidc: doc.oidc,
      project: {
        roleAssertion: project.projectRoleAssertion,
        authorizationRequired: project.authorizationRequired,
        projectAccessRequired: project.projectAccessRequired,
      },
      audience: [...(await projectClientIds(db, project.id)), project.id, url],
      keys: [],
    },
  };
}
