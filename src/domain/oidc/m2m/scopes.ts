import { defineCache } from '../../cache';
import type { Source } from '../../context';
import { projectClientIds, projectExists } from '../clients';
import { isKnownScope, RESERVED, splitScopes } from '../scopes';

// Project audiences change only when applications are added or removed; a few seconds of staleness
// only delays a new application's appearance in new tokens' audience.
const projectAudiences = defineCache<string[] | undefined>('m2m.project-audience', { maxAgeMs: 5_000 });

function projectAudience({ db, runtime }: Source, projectId: string): Promise<string[] | undefined> {
  return runtime
    .get(projectAudiences)
    .get(projectId, async () =>
      (await projectExists(db, projectId)) ? [projectId, ...(await projectClientIds(db, projectId))] : undefined,
    );
}

/**
 * Scopes and audience of a machine token. Unknown scopes are dropped (the response's scope says
 * what was granted); `offline_access` is dropped because the machine grants issue no refresh token.
 * The audience is the machine user itself plus every project named by
 * `urn:service:iam:org:project:id:{projectId}:aud` (the project id and its applications' client ids).
 */
export async function machineScopes(
  src: Source,
  userId: string,
  raw: string | undefined,
): Promise<{ scopes: string[]; audience: string[] }> {
  const scopes = splitScopes(raw).filter((s) => isKnownScope(s) && s !== 'offline_access');
  const audience = new Set([userId]);
  const kept: string[] = [];
  for (const s of scopes) {
    const m = RESERVED.projectAudience.exec(s);
    if (m) {
      const aud = await projectAudience(src, m[1]);
      if (!aud) continue;
      for (const a of aud) audience.add(a);
    }
    kept.push(s);
  }
  return { scopes: kept, audience: [...audience] };
}
