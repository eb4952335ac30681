import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client';
import { identityProviders } from '../../db/schema/index';
import { DomainError } from '../errors';
import type { UnitOfWork } from '../execute';
import { type PreparedProvider, createIdentityProviderIn, prepareProvider } from '../idp/commands';
import type { IdpEnv } from '../idp/env';
import type { ImportError, ImportOrg, ImportedOrg } from './model';
import { type EventRow, BATCH_ROWS, appendEvents } from './bulk';
import { inSavepoint } from './resources';

/** A provider of the body checked before the organization's transaction: ready to insert, or why not. */
export type PreparedIdp = { idpId: string } & ({ prepared: PreparedProvider } | { error: string });

/**
 * Checks the body's providers with every rule that needs no database. It runs before the
 * organization's transaction because a SAML provider given by metadata URL is fetched here: a slow
 * upstream must not hold the transaction's locks.
 */
export async function prepareIdps(
  org: ImportOrg,
  env: IdpEnv | undefined,
  checkDeadline: () => void,
): Promise<PreparedIdp[]> {
  const out: PreparedIdp[] = [];
  for (const idp of org.idps) {
    checkDeadline();
    if ('invalid' in idp.provider) {
      out.push({ idpId: idp.idpId, error: idp.provider.invalid });
      continue;
    }
    if (!env) {
      out.push({ idpId: idp.idpId, error: 'Errors.Import.NotSupported' });
      continue;
    }
    try {
      out.push({
        idpId: idp.idpId,
        prepared: await prepareProvider({ ...idp.provider, orgId: org.orgId, id: idp.idpId }, env),
      });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      out.push({ idpId: idp.idpId, error: err.key });
    }
  }
  return out;
}

/**
 * Creates the organization's providers under the body's ids, each under a savepoint (a failing one is
 * an errors[] entry and leaves no trace), then links the users' upstream accounts. A
 * provider or link that already exists in the organization as the body describes it (a re-run)
 * counts as imported and is not written again; an id or upstream account that belongs to someone
 * else is an error.
 */
export async function importIdentityProviders(
  work: UnitOfWork,
  env: IdpEnv | undefined,
  org: ImportOrg,
  prepared: PreparedIdp[],
  imported: ImportedOrg,
  errors: ImportError[],
  checkDeadline: () => void,
): Promise<void> {
  const tx = work.tx;
  const orgId = org.orgId;
  const seen = new Set<string>();
  for (const p of prepared) {
    checkDeadline();
    const [found] = await tx
      .select({ orgId: identityProviders.orgId, removedAt: identityProviders.removedAt })
      .from(identityProviders)
      .where(eq(identityProviders.id, p.idpId));
    const ours = found && found.orgId === orgId && found.removedAt === null;
    if (seen.has(p.idpId) || (found && !ours)) {
      errors.push({ type: 'idp', id: p.idpId, key: 'Errors.IdP.AlreadyExisting' });
    } else if (ours) {
      imported.idpIds.push(p.idpId);
    } else if ('error' in p) {
      errors.push({ type: 'idp', id: p.idpId, key: p.error });
    } else {
      const key = await inSavepoint(work, (s) => createIdentityProviderIn(s, env!, p.prepared));
      if (key) errors.push({ type: 'idp', id: p.idpId, key });
      else imported.idpIds.push(p.idpId);
    }
    seen.add(p.idpId);
  }

  await importLinks(work, org, imported, errors, checkDeadline);
}

interface LinkState {
  user_org: string | null;
  user_type: string | null;
  user_state: string | null;
  idp_found: boolean;
  idp_org: string | null;
  linked_user: string | null;
  seq: number | null;
}

/**
 * The links by AddIDPLink's rules, in bulk (a Keycloak realm brings one or more per user): what each
 * link needs to know is read in one statement per batch, the links that pass are inserted with one
 * statement, and their `user.human.idp.link.added` events appended after each user's last event.
 */
async function importLinks(
  work: UnitOfWork,
  org: ImportOrg,
  imported: ImportedOrg,
  errors: ImportError[],
  checkDeadline: () => void,
): Promise<void> {
  const tx = work.tx;
  // Events queued by the scope go first: the sequences below are read from the table.
  await work.flush();
  /** `<idpId>\0<externalUserId>` → the user it is linked to in this body (first occurrence wins) */
  const taken = new Map<string, string>();
  for (let i = 0; i < org.userLinks.length; i += BATCH_ROWS) {
    checkDeadline();
    const batch = org.userLinks.slice(i, i + BATCH_ROWS);
    const wanted = batch.map((l, n) => ({ n, user_id: l.userId, idp_id: l.idpId, external_user_id: l.externalUserId }));
    const states = (await queryRows(
      tx,
      sql`select u.org_id as user_org, u.type as user_type, u.state as user_state, p.id is not null as idp_found,
          p.org_id as idp_org, x.user_id as linked_user,
          (select max(e.sequence) from events e where e.aggregate_type = 'user' and e.aggregate_id = w.user_id) as seq
        from jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb)
          as w(n integer, user_id text, idp_id text, external_user_id text)
        left join users u on u.id = w.user_id
        left join identity_providers p on p.id = w.idp_id and p.removed_at is null
        left join idp_links x on x.idp_id = w.idp_id and x.external_user_id = w.external_user_id
        order by w.n`,
    )) as LinkState[];
    const rows: { idp_id: string; external_user_id: string; external_username: string; user_id: string }[] = [];
    const sequences = new Map<string, number>();
    const eventRows: EventRow[] = [];
    for (let k = 0; k < batch.length; k++) {
      const l = batch[k];
      const st = states[k];
      const key = `${l.idpId}\u0000${l.externalUserId}`;
      const fail = (errorKey: string) => {
        errors.push({ type: 'user_link', id: `${l.userId}_${l.idpId}_${l.externalUserId}`, key: errorKey });
      };
      const owner = taken.get(key) ?? st.linked_user;
      if (owner) {
        // Linked already (a re-run, or a repeat in the body): counted once; to someone else: refused.
        if (owner !== l.userId) fail('Errors.IdP.LinkExists');
        else if (!taken.has(key)) {
          taken.set(key, l.userId);
          imported.userLinks.push({ userId: l.userId, idpId: l.idpId, externalUserId: l.externalUserId });
        }
        continue;
      }
      const problem =
        // Only people of this organization: a body must not hand another organization's user a way in.
        st.user_org !== org.orgId || st.user_state === 'REMOVED'
          ? 'Errors.User.NotFound'
          : st.user_type !== 'HUMAN'
            ? 'Errors.User.NotHuman'
            : // The organization's own providers and the instance's, as AddIDPLink allows.
              !st.idp_found || (st.idp_org !== null && st.idp_org !== org.orgId)
              ? 'Errors.IdP.NotFound'
              : undefined;
      if (problem) {
        fail(problem);
        continue;
      }
      taken.set(key, l.userId);
      const seq = (sequences.get(l.userId) ?? Number(st.seq ?? 0)) + 1;
      sequences.set(l.userId, seq);
      rows.push({
        idp_id: l.idpId,
        external_user_id: l.externalUserId,
        external_username: l.externalUsername,
        user_id: l.userId,
      });
      eventRows.push({
        aggregate_type: 'user',
        aggregate_id: l.userId,
        sequence: seq,
        event_type: 'user.human.idp.link.added',
        payload: { idpId: l.idpId, externalUserId: l.externalUserId, externalUsername: l.externalUsername },
        resource_owner: org.orgId,
      });
      imported.userLinks.push({ userId: l.userId, idpId: l.idpId, externalUserId: l.externalUserId });
    }
    if (rows.length === 0) continue;
    await tx.execute(sql`
      insert into idp_links (idp_id, external_user_id, external_username, user_id, org_id)
      select r.idp_id, r.external_user_id, r.external_username, r.user_id, ${org.orgId}
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(idp_id text, external_user_id text, external_username text, user_id text)`);
    await appendEvents(tx, work.ctx, eventRows);
  }
}
