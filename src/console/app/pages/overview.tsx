/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { InstanceService } from '../../../../gen/portcullis/instance/v2/instance_service_pb';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';

/** The instance at a glance: what an operator checks first after signing in. */
export function Overview() {
  const t = useWords();
  const instance = useQuery(InstanceService.method.getInstance, {});
  if (instance.isPending) return <Loading />;
  if (instance.error) return <Failure error={instance.error} />;
  const i = instance.data.instance!;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">{t.overview}</h1>
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
