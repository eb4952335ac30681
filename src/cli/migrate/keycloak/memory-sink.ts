import type { ImportIdpItem, ImportUserLinkItem } from './identity-providers';
import type { ImportSink, TargetIdps, TargetOrg } from './sink';
import type { ImportHumanUser, ImportUserMetadata } from './user';

/** The import body the conversion writes, kept in memory: what the console sends after a conversion. */
export interface KeycloakImportBody {
  dataOrgs: {
    orgs: {
      orgId: string;
      org: { name: string };
      humanUsers: ImportHumanUser[];
      userMetadata: ImportUserMetadata[];
      idps?: ImportIdpItem[];
      userLinks?: ImportUserLinkItem[];
    }[];
  };
  timeout: string;
}

/**
 * A sink that collects the body the FileSink would write (same fields, links kept only for providers
 * that were converted), for the console, which converts an uploaded export in the browser.
 */
export class MemorySink implements ImportSink {
  private readonly users: ImportHumanUser[] = [];
  private readonly metadata: ImportUserMetadata[] = [];
  private readonly links: ImportUserLinkItem[] = [];
  body?: KeycloakImportBody;

  constructor(private readonly timeout = '5m0s') {}

  add(user: ImportHumanUser, metadata: ImportUserMetadata[], links: ImportUserLinkItem[]): void {
    this.users.push(user);
    this.metadata.push(...metadata);
    this.links.push(...links);
  }

  async flush(): Promise<void> {}

  async finish(org: TargetOrg, idps: TargetIdps): Promise<void> {
    const withIdps =
      idps.idps.length > 0 ? { idps: idps.idps, userLinks: this.links.filter((l) => idps.keepLink(l.idpId)) } : {};
    this.body = {
      dataOrgs: {
        orgs: [
          {
            orgId: org.orgId,
            org: { name: org.name },
            humanUsers: this.users,
            userMetadata: this.metadata,
            ...withIdps,
          },
        ],
      },
      timeout: this.timeout,
    };
  }

  async abort(): Promise<void> {}
}
