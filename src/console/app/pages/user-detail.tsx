/** @jsxImportSource react */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, Fragment, type ReactNode, useState } from 'react';
import { SessionService } from '../../../../gen/portcullis/session/v2/session_service_pb';
import { type User, UserState } from '../../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { Field, fieldError } from '../components/field';
import { useOrgNames } from '../components/org-select';
import { CopyValue } from '../components/shown-once';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { originColumns } from '../session-columns';
import { usePermissions } from '../permissions';
import { MetadataPart } from '../components/metadata';
import { ProfileForm } from './user-profile';
import { AuthorizationsPart, MembershipsPart } from './user-access';
import {
  EmailPart,
  FactorsPart,
  KeysPart,
  PasswordPart,
  PhonePart,
  SecretPart,
  StateActions,
} from './user-credentials';

const when = (d?: Parameters<typeof timestampDate>[0]) => dateCell(d && timestampDate(d));

/**
 * One user: profile, personal access tokens (machine users), metadata and sessions. Each part offers
 * changes only with the permission for the user's organization; the API refuses either way, and a
 * user the person may not read shows the refusal and nothing else.
 */
export function UserDetail({ userId, go }: { userId: string; go: (to: string) => void }) {
  const t = useWords();
  const { ready } = usePermissions();
  const got = useQuery(UserService.method.getUserByID, { userId });
  if (got.error) return <Failure error={got.error} />;
  const user = got.data?.user;
  if (!user) return <Loading />;
  const title = user.type.case === 'human' ? user.type.value.profile?.displayName : user.type.value?.name;
  return (
    <section aria-labelledby="user-title" aria-busy={!ready}>
      <p>
        <a
          href="/ui/console/users"
          onClick={(e) => {
            e.preventDefault();
            go('users');
          }}
        >
          ← {t.users}
        </a>
      </p>
      <h1 id="user-title">{title || user.username}</h1>
      <StateActions user={user} go={go} />
      <Profile user={user} />
      <ProfileForm user={user} />
      {user.type.case === 'human' && (
        <>
          <EmailPart user={user} />
          <PhonePart user={user} />
          <PasswordPart user={user} />
          <FactorsPart user={user} />
        </>
      )}
      {user.type.case === 'machine' && (
        <>
          <PersonalAccessTokens user={user} />
          <KeysPart user={user} />
          <SecretPart user={user} />
        </>
      )}
      <UserMetadata user={user} />
      <Sessions user={user} />
      <AuthorizationsPart user={user} />
      <MembershipsPart user={user} />
    </section>
  );
}

function Profile({ user }: { user: User }) {
  const t = useWords();
  const orgs = useOrgNames();
  const state = user.state === UserState.ACTIVE ? t.active : user.state === UserState.LOCKED ? t.locked : t.inactive;
  const rows: [string, ReactNode][] = [
    [t.id, <CopyValue key="id" value={user.userId} testId="user-id" name={t.id} />],
    [t.organization, orgs.get(user.organizationId) ?? <code>{user.organizationId}</code>],
    [t.username, user.username],
    [t.loginName, user.preferredLoginName],
    [t.state, state],
    [t.created, when(user.creationDate)],
  ];
  if (user.type.case === 'human') {
    const h = user.type.value;
    rows.push(
      [t.givenName, h.profile?.givenName ?? ''],
      [t.familyName, h.profile?.familyName ?? ''],
      [t.nickName, h.profile?.nickName ?? ''],
      [t.language, h.profile?.preferredLanguage ?? ''],
      [t.email, `${h.email?.email ?? ''}${h.email?.isVerified ? ` (${t.verified})` : ''}`],
    );
  } else if (user.type.case === 'machine') {
    rows.push([t.description, user.type.value.description]);
  }
  return (
    <dl className="facts">
      {rows.map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** A machine user's tokens: the new token is shown once; removing one ends its use at once. */
function PersonalAccessTokens({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('user.credential.write', { orgId: user.organizationId });
  const [expiry, setExpiry] = useState('');
  const [doomed, setDoomed] = useState<string>();
  const tokens = useQuery(UserService.method.listPersonalAccessTokens, { userId: user.userId });
  const add = useChange(UserService.method.addPersonalAccessToken, () => setExpiry(''));
  const remove = useChange(UserService.method.removePersonalAccessToken, () => setDoomed(undefined));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({
      userId: user.userId,
      expirationDate: expiry ? timestampFromDate(new Date(`${expiry}T23:59:59Z`)) : undefined,
    });
  };
  const expiryError = fieldError(add.error, 'expiration_date');
  return (
    <section aria-labelledby="pat-title">
      <h2 id="pat-title">{t.personalAccessTokens}</h2>
      {allowed && (
        <form className="inline-form" onSubmit={submit} aria-label={t.newToken}>
          <Field id="pat-expiry" label={t.expires} error={expiryError}>
            <input id="pat-expiry" type="date" value={expiry} onChange={(e) => setExpiry(e.target.value)} />
          </Field>
          <button type="submit" disabled={add.isPending}>
            {t.newToken}
          </button>
          {add.error && !expiryError && <Failure error={add.error} />}
          {add.data && (
            <p role="status" className="ok">
              {t.tokenOnce} <code>{add.data.token}</code>
            </p>
          )}
        </form>
      )}
      {(tokens.error || remove.error) && <Failure error={tokens.error ?? remove.error} />}
      {tokens.data && (
        <DataTable
          rows={tokens.data.result}
          empty={t.emptyTokens}
          rowKey={(p) => p.id}
          columns={[
            { header: t.id, cell: (p) => p.id },
            { header: t.created, cell: (p) => when(p.creationDate) },
            { header: t.expires, cell: (p) => (p.expirationDate ? when(p.expirationDate) : t.never) },
          ]}
          actions={(p) =>
            allowed && (
              <button type="button" className="danger" onClick={() => setDoomed(p.id)}>
                {t.remove}
              </button>
            )
          }
        />
      )}
      {doomed && (
        <Confirm
          question={t.confirmRemoveToken(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId: user.userId, tokenId: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}

function UserMetadata({ user }: { user: User }) {
  const { can } = usePermissions();
  const list = useQuery(UserService.method.listUserMetadata, { userId: user.userId });
  const set = useChange(UserService.method.setUserMetadata);
  const remove = useChange(UserService.method.deleteUserMetadata);
  return (
    <MetadataPart
      id="user-metadata"
      entries={list.data?.metadata}
      error={list.error}
      allowed={can('user.write', { orgId: user.organizationId })}
      setError={set.error}
      removeError={remove.error}
      onSet={(key, value) => set.mutate({ userId: user.userId, metadata: [{ key, value }] })}
      onRemove={(key) => remove.mutate({ userId: user.userId, keys: [key] })}
    />
  );
}

/**
 * The user's sessions. SessionService is the login UI's API: listing and ending sessions needs
 * `user.write` on the instance, so only instance administrators see this part.
 */
function Sessions({ user }: { user: User }) {
  const t = useWords();
  const { can } = usePermissions();
  const allowed = can('user.write');
  const [doomed, setDoomed] = useState<string>();
  const sessions = useQuery(SessionService.method.listSessions, { userId: user.userId }, { enabled: allowed });
  const end = useChange(SessionService.method.deleteSession, () => setDoomed(undefined));
  if (!allowed) return null;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t.sessions}</h2>
      {(sessions.error || end.error) && <Failure error={sessions.error ?? end.error} />}
      {sessions.data &&
        (sessions.data.sessions.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <DataTable
            rows={sessions.data.sessions}
            rowKey={(s) => s.id}
            columns={[
              { header: t.created, cell: (s) => when(s.creationDate) },
              ...originColumns(t),
              { header: t.methods, cell: (s) => s.amr.join(', ') },
            ]}
            actions={(s) => (
              <button type="button" className="danger" onClick={() => setDoomed(s.id)}>
                {t.terminate}
              </button>
            )}
          />
        ))}
      {doomed && (
        <Confirm
          question={t.confirmTerminate}
          action={t.terminate}
          onConfirm={() => end.mutate({ sessionId: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}
