import type { ImportIdpItem, ImportUserLinkItem } from './identity-providers';
import type { ImportHumanUser, ImportUserMetadata } from './user';

/** The organization the users go to; the name is known only once the realm has been read. */
export interface TargetOrg {
  orgId: string;
  name: string;
}

/** The realm's identity providers, known at the end (a single-file export lists them after the users). */
export interface TargetIdps {
  idps: ImportIdpItem[];
  /** whether a link to this provider id goes into the body (its provider was converted) */
  keepLink(idpId: string): boolean;
}

/** Where converted users go: the import body file, or the server's import route. */
export interface ImportSink {
  /** buffers one user, its metadata and its links (synchronous: called while a chunk is being scanned) */
  add(user: ImportHumanUser, metadata: ImportUserMetadata[], links: ImportUserLinkItem[]): void;
  /** waits until buffered output has been written or sent (called between input chunks) */
  flush(org: () => TargetOrg): Promise<void>;
  finish(org: TargetOrg, idps: TargetIdps): Promise<void>;
  /** removes partial output after a failure */
  abort(): Promise<void>;
}
