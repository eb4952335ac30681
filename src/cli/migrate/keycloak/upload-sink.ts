import type { ImportIdpItem, ImportUserLinkItem } from './identity-providers';
import type { ImportSink, TargetIdps, TargetOrg } from './sink';
import type { ImportHumanUser, ImportUserMetadata } from './user';

export class UploadError extends Error {}

interface Batch {
  users: ImportHumanUser[];
  metadata: ImportUserMetadata[];
  idps?: ImportIdpItem[];
  userLinks?: ImportUserLinkItem[];
}

interface ImportResponse {
  success?: { orgs?: { orgId?: string; humanUserIds?: string[]; idpIds?: string[]; userLinks?: unknown[] }[] };
  errors?: { type?: string; id?: string; message?: string }[];
}

const RETRIES = 3;
const FAILURE_EXAMPLES = 10;

/**
 * Sends the converted users to POST /admin/v1/import in batches. The server's import is idempotent
 * (a user already in the organization counts as imported and is not written again), so a re-run
 * after an interruption sends everything again and only the missing users are created. A user whose
 * id or username belongs to someone else comes back as an error and is reported.
 */
export class UploadSink implements ImportSink {
  private batch: Batch = { users: [], metadata: [] };
  private readonly full: Batch[] = [];
  private batches = 0;
  /**
   * Links wait for the end, when the realm's providers are known. They are small (a million take
   * about 150 MB); the users themselves are sent as they come.
   */
  private readonly links: ImportUserLinkItem[] = [];
  /** users the server confirmed: created now, or already in the organization from an earlier run */
  imported = 0;
  idpsImported = 0;
  linksImported = 0;
  failed = 0;
  readonly failures: string[] = [];

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly timeout: string,
    private readonly batchSize: number,
    private readonly progress: (line: string, final: boolean) => void,
  ) {}

  add(user: ImportHumanUser, metadata: ImportUserMetadata[], links: ImportUserLinkItem[]): void {
    for (const l of links) this.links.push(l);
    this.batch.users.push(user);
    for (const m of metadata) this.batch.metadata.push(m);
    if (this.batch.users.length >= this.batchSize) {
      this.full.push(this.batch);
      this.batch = { users: [], metadata: [] };
    }
  }

  async flush(org: () => TargetOrg): Promise<void> {
    while (this.full.length > 0) await this.send(this.full.shift()!, org());
  }

  async finish(org: TargetOrg, idps: TargetIdps): Promise<void> {
    await this.flush(() => org);
    if (this.batch.users.length > 0 || this.batches === 0) await this.send(this.batch, org);
    if (idps.idps.length > 0) {
      // The providers first, then the links in batches: all their users are in by now.
      const links = this.links.filter((l) => idps.keepLink(l.idpId));
      this.links.length = 0;
      for (let i = 0; i === 0 || i < links.length; i += this.batchSize)
        await this.send(
          {
            users: [],
            metadata: [],
            idps: i === 0 ? idps.idps : undefined,
            userLinks: links.slice(i, i + this.batchSize),
          },
          org,
        );
    }
    this.progress(this.status(), true);
  }

  async abort(): Promise<void> {}

  private status(): string {
    const idps =
      this.idpsImported || this.linksImported
        ? `, ${this.idpsImported} provider(s), ${this.linksImported} link(s)`
        : '';
    const refused = `${this.failed} refused (${this.batches} request(s))`;
    return `import: ${this.imported} imported or already present${idps}, ${refused}`;
  }

  private async send(batch: Batch, org: TargetOrg): Promise<void> {
    const body = JSON.stringify({
      dataOrgs: {
        orgs: [
          {
            orgId: org.orgId,
            org: { name: org.name },
            humanUsers: batch.users,
            userMetadata: batch.metadata,
            ...(batch.idps ? { idps: batch.idps } : {}),
            ...(batch.userLinks ? { userLinks: batch.userLinks } : {}),
          },
        ],
      },
      timeout: this.timeout,
    });
    const result = await this.post(body);
    this.batches++;
    const ids = new Set(result.success?.orgs?.flatMap((o) => o.humanUserIds ?? []) ?? []);
    this.imported += ids.size;
    for (const o of result.success?.orgs ?? []) {
      this.idpsImported += o.idpIds?.length ?? 0;
      this.linksImported += o.userLinks?.length ?? 0;
    }
    for (const e of result.errors ?? []) {
      if (e.type === 'org') continue; // the org exists after the first batch (or a previous run)
      this.failed++;
      if (this.failures.length < FAILURE_EXAMPLES) this.failures.push(`${e.type} ${e.id}: ${e.message}`);
    }
    this.progress(this.status(), false);
  }

  private async post(body: string): Promise<ImportResponse> {
    const endpoint = new URL('/admin/v1/import', this.url).toString();
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.token}` },
          body,
        });
      } catch (err) {
        if (attempt >= RETRIES) throw new UploadError(`cannot reach ${endpoint}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 1000 * attempt));
        continue;
      }
      const text = await res.text();
      if (res.ok) {
        try {
          return JSON.parse(text) as ImportResponse;
        } catch {
          throw new UploadError(`${endpoint} answered ${res.status} with a body that is not JSON`);
        }
      }
      // Server-side trouble may pass; a refused token or body will not.
      if (res.status >= 500 && attempt < RETRIES) {
        await new Promise((r) => setTimeout(r, 1000 * attempt));
        continue;
      }
      throw new UploadError(`${endpoint} answered ${res.status}: ${text.slice(0, 500)}`);
    }
  }
}
