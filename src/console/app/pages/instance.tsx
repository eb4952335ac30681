/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import { type InstanceDomain, InstanceService } from '../../../../gen/portcullis/instance/v2/instance_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { fieldError } from '../components/field';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { InstanceSettingsForm, LoginSettingsForm } from './instance-settings';
import { SigningKeys } from './signing-keys';

/**
 * The instance: its name, domains and trusted domains, the instance-wide settings, the default login
 * policy and the signing keys. Only instance administrators reach it (the nav entry needs iam.read).
 */
export function Instance() {
  const t = useWords();
  const { can, ready } = usePermissions();
  const instance = useQuery(InstanceService.method.getInstance, {});
  const write = can('iam.write');
  const policy = can('iam.policy.write');
  return (
    <section aria-labelledby="instance-title" aria-busy={!ready}>
      <h1 id="instance-title">{t.instance}</h1>
      {instance.isPending ? (
        <Loading />
      ) : instance.error || !instance.data.instance ? (
        // a refusal here (an organization administrator at this address) would repeat in every part
        <Failure error={instance.error} />
      ) : (
        <>
          <InstanceName key={instance.data.instance.name} name={instance.data.instance.name} canWrite={write} />
          <Domains canWrite={write} />
          <InstanceSettingsForm canWrite={policy} />
          <LoginSettingsForm canWrite={policy} />
          <SigningKeys canWrite={write} />
        </>
      )}
    </section>
  );
}

function InstanceName(props: { name: string; canWrite: boolean }) {
  const t = useWords();
  const [name, setName] = useState(props.name);
  const update = useChange(InstanceService.method.updateInstance);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ instanceName: name });
  };
  const error = fieldError(update.error, 'instance_name');
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="instance-name-title">
      <h2 id="instance-name-title">{t.instanceName}</h2>
      <TextField id="instance-name" label={t.name} value={name} onChange={setName} error={error} />
      {props.canWrite && (
        <button type="submit" disabled={update.isPending}>
          {t.save}
        </button>
      )}
      {update.error && !error && <Failure error={update.error} />}
    </form>
  );
}

/** The instance's domains: the generated one, custom ones and trusted ones (these may be added and removed). */
function Domains(props: { canWrite: boolean }) {
  const t = useWords();
  const domains = useQuery(InstanceService.method.listInstanceDomains, { pagination: { limit: 1000 } });
  const [domain, setDomain] = useState('');
  const [removing, setRemoving] = useState<InstanceDomain>();
  const add = useChange(InstanceService.method.addTrustedDomain, () => setDomain(''));
  const remove = useChange(InstanceService.method.removeTrustedDomain, () => setRemoving(undefined));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ domain });
  };
  const error = fieldError(add.error, 'domain');
  const kind = (d: InstanceDomain) => (d.isGenerated ? t.generated : d.isTrusted ? t.trusted : t.custom);
  return (
    <>
      <h2>{t.domains}</h2>
      {props.canWrite && (
        <form className="inline-form" onSubmit={submit} aria-labelledby="trusted-title">
          <h3 id="trusted-title">{t.addTrustedDomain}</h3>
          <TextField id="trusted-domain" label={t.domain} value={domain} onChange={setDomain} error={error} />
          <button type="submit" disabled={add.isPending}>
            {t.add}
          </button>
          {add.error && !error && <Failure error={add.error} />}
        </form>
      )}
      {remove.error && <Failure error={remove.error} />}
      {domains.isPending ? (
        <Loading />
      ) : domains.error ? (
        <Failure error={domains.error} />
      ) : (
        <DataTable
          rows={domains.data.domains}
          rowKey={(d) => d.domain}
          columns={[
            { header: t.domain, cell: (d) => d.domain },
            { header: t.kind, cell: kind },
            { header: t.created, cell: (d) => dateCell(d.creationDate && timestampDate(d.creationDate)) },
          ]}
          actions={(d) =>
            props.canWrite &&
            d.isTrusted &&
            !d.isGenerated && (
              <button type="button" className="danger" onClick={() => setRemoving(d)}>
                {t.remove}
              </button>
            )
          }
        />
      )}
      {removing && (
        <Confirm
          question={t.confirmRemoveDomain(removing.domain)}
          action={t.remove}
          onConfirm={() => remove.mutate({ domain: removing.domain })}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </>
  );
}
