/** @jsxImportSource react */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import type { MouseEvent, ReactNode } from 'react';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { EventService } from '../../../../gen/portcullis/event/v2/event_service_pb';
import { InstanceService } from '../../../../gen/portcullis/instance/v2/instance_service_pb';
import { OrganizationService } from '../../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../../gen/portcullis/project/v2/project_service_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Icon, type IconName } from '../components/icons';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import { eventLabel } from '../event-labels';
import { usePermissions } from '../permissions';
import { useOrgScope } from '../scope';

/** Counting a list asks for one row: the answer's total is the count. */
const ONE = { limit: 1 };
/** An event search answers at most this many; a day with more shows "1000+". */
const SEARCH_CAP = 1000;
const RECENT = 8;

/**
 * What a person signing in checks first: how much there is (organizations, users, projects,
 * applications, sign-ins today) and what happened last, each only where their roles reach. An instance
 * administrator sees the instance, or the organization chosen in the switcher; an organization's owner
 * sees that organization. Nothing here needs a permission the person lacks, so nobody meets a refusal.
 */
export function Overview({ go }: { go: (to: string) => void }) {
  const t = useWords();
  const perms = usePermissions();
  const scope = useOrgScope();
  if (!perms.ready) return <Loading />;
  if (perms.none) return <NoRoles />;
  const { orgId } = scope;
  const follow = (to: string) => (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go(to);
  };
  // events of one organization, or of the instance for those who may read them all
  const eventsReadable = orgId ? perms.can('events.read', { orgId }) : perms.instanceWide && perms.can('events.read');
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">{t.overview}</h1>
      <p className="lead">
        {orgId ? t.overviewOfOrg(scope.orgName ?? '') : perms.instanceWide ? t.overviewOfInstance : ''}
      </p>
      <ul className="cards">
        {!orgId && perms.canSomewhere('org.read') && (
          <Card label={t.organizations} icon="organizations" href="organizations" follow={follow}>
            <OrgCount />
          </Card>
        )}
        {perms.canSomewhere('user.read') && (
          <Card label={t.users} icon="users" href="users" follow={follow}>
            <UserCount orgId={orgId} />
          </Card>
        )}
        {perms.canSomewhere('project.read') && (
          <Card label={t.projects} icon="projects" href="projects" follow={follow}>
            <ProjectCount orgId={orgId} />
          </Card>
        )}
        {perms.canSomewhere('project.app.read') && (
          <Card label={t.applications} icon="applications" href="projects" follow={follow}>
            <AppCount orgId={orgId} />
          </Card>
        )}
        {eventsReadable && (
          <Card label={t.sessionsToday} icon="sessions" href="events" follow={follow}>
            <SessionsToday orgId={orgId} />
          </Card>
        )}
      </ul>
      {eventsReadable && <RecentEvents orgId={orgId} follow={follow} />}
      {!orgId && perms.can('iam.read') && <InstanceFacts />}
    </section>
  );
}

function Card(props: {
  label: string;
  icon: IconName;
  href: string;
  follow: (to: string) => (e: MouseEvent) => void;
  children: ReactNode;
}) {
  return (
    <li>
      <a href={`/ui/console/${props.href}`} onClick={props.follow(props.href)}>
        <span className="card-icon">
          <Icon name={props.icon} />
        </span>
        <span className="count">{props.children}</span>
        <span className="card-label">{props.label}</span>
      </a>
    </li>
  );
}

/** A count once its list has answered; a dash when it could not be had. */
function Count({
  query,
}: {
  query: { isPending: boolean; error: unknown; data?: { pagination?: { totalResult: bigint } } };
}) {
  if (query.isPending) return <>…</>;
  if (query.error || !query.data) return <>–</>;
  return <>{Number(query.data.pagination?.totalResult ?? 0n).toLocaleString(document.documentElement.lang)}</>;
}

function OrgCount() {
  return <Count query={useQuery(OrganizationService.method.listOrganizations, { pagination: ONE })} />;
}

function UserCount({ orgId }: { orgId?: string }) {
  const filters = orgId
    ? [{ filter: { case: 'organizationIdFilter' as const, value: { organizationId: orgId } } }]
    : [];
  return <Count query={useQuery(UserService.method.listUsers, { pagination: ONE, filters })} />;
}

function ProjectCount({ orgId }: { orgId?: string }) {
  const filters = orgId
    ? [{ filter: { case: 'projectOrganizationId' as const, value: { organizationId: orgId } } }]
    : [{ filter: { case: 'kind' as const, value: { ownedOnly: true } } }];
  return <Count query={useQuery(ProjectService.method.listProjects, { pagination: ONE, filters })} />;
}

function AppCount({ orgId }: { orgId?: string }) {
  const filters = orgId ? [{ filter: { case: 'organizationId' as const, value: orgId } }] : [];
  return <Count query={useQuery(ApplicationService.method.listApplications, { pagination: ONE, filters })} />;
}

/** Sessions created since midnight (the browser's), counted from their events. */
function SessionsToday({ orgId }: { orgId?: string }) {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const found = useQuery(
    EventService.method.listEvents,
    {
      limit: SEARCH_CAP,
      eventTypes: ['session.added'],
      resourceOwner: orgId ?? '',
      createdSince: timestampFromDate(midnight),
    },
    // the day's start is part of the query: a minute later is the same query
    { staleTime: 60_000 },
  );
  if (found.isPending) return <>…</>;
  if (found.error) return <>–</>;
  const n = found.data.events.length;
  return <>{n >= SEARCH_CAP ? `${SEARCH_CAP}+` : n.toLocaleString(document.documentElement.lang)}</>;
}

function RecentEvents({ orgId, follow }: { orgId?: string; follow: (to: string) => (e: MouseEvent) => void }) {
  const t = useWords();
  const recent = useQuery(EventService.method.listEvents, { limit: RECENT, resourceOwner: orgId ?? '' });
  return (
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">{t.recentEvents}</h2>
      {recent.isPending ? (
        <Loading />
      ) : recent.error ? (
        <Failure error={recent.error} />
      ) : recent.data.events.length === 0 ? (
        <p className="empty">{t.noEventsYet}</p>
      ) : (
        <ol className="events">
          {recent.data.events.map((e) => {
            const at = e.creationDate && timestampDate(e.creationDate);
            return (
              <li key={String(e.position)}>
                <time dateTime={at?.toISOString()}>{at?.toLocaleString(document.documentElement.lang)}</time>{' '}
                <strong>{eventLabel(e.type, document.documentElement.lang)}</strong>
                {e.editorDisplayName ? ` · ${e.editorDisplayName}` : ''}
              </li>
            );
          })}
        </ol>
      )}
      <p>
        <a href="/ui/console/events" onClick={follow('events')}>
          {t.allEvents}
        </a>
      </p>
    </section>
  );
}

/** The instance itself, for those who may read it. */
function InstanceFacts() {
  const t = useWords();
  const instance = useQuery(InstanceService.method.getInstance, {});
  if (instance.isPending) return <Loading />;
  if (instance.error) return <Failure error={instance.error} />;
  const i = instance.data.instance!;
  return (
    <section aria-labelledby="instance-facts-title">
      <h2 id="instance-facts-title">{t.instance}</h2>
      <dl className="facts">
        <dt>{t.name}</dt>
        <dd>{i.name}</dd>
        <dt>{t.id}</dt>
        <dd>
          <code>{i.id}</code>
        </dd>
        <dt>{t.domains}</dt>
        <dd>{i.domains.join(', ')}</dd>
        <dt>{t.created}</dt>
        <dd>{i.creationDate ? timestampDate(i.creationDate).toLocaleString(document.documentElement.lang) : ''}</dd>
      </dl>
    </section>
  );
}

/** Someone with no administrator role: the console has nothing for them; their own account does. */
function NoRoles() {
  const t = useWords();
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">{t.overview}</h1>
      <p role="alert" className="notice">
        {t.noRoles}
      </p>
      <p>
        <a href="/ui/account/">{t.openAccount}</a>
      </p>
    </section>
  );
}
