import type { ImportHumanUser, ImportUserMetadata } from './user';

/** The organization the users go to; the name is known only once the realm has been read. */
export interface TargetOrg {
  orgId: string;
  name: string;
}

/** Where converted users go: the import body file, or the server's import route. */
export interface ImportSink {
  /** buffers one user and its metadata (synchronous: called while a chunk is being scanned) */
  add(user: ImportHumanUser, metadata: ImportUserMetadata[]): void;
  /** waits until buffered output has been written or sent (called between input chunks) */
  flush(org: () => TargetOrg): Promise<void>;
  finish(org: TargetOrg): Promise<void>;
  /** removes partial output after a failure */
  abort(): Promise<void>;
}
