/** @jsxImportSource react */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import { InstanceService } from '../../../../gen/portcullis/instance/v2/instance_service_pb';
import { type WebKey, WebKeyAlgorithm, WebKeyState } from '../../../../gen/portcullis/instance/v2/web_key_pb';
import { Confirm } from '../components/confirm';
import { CreateInDialog, DialogActions } from '../components/dialog';
import { DataTable, dateCell } from '../components/data-table';
import { Field } from '../components/field';
import { Failure, Loading } from '../components/status';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';

type Pending = { key: WebKey; action: 'activate' | 'delete' };

const ALGORITHMS: [WebKeyAlgorithm, string][] = [
  [WebKeyAlgorithm.RS256, 'RS256'],
  [WebKeyAlgorithm.ES256, 'ES256'],
  [WebKeyAlgorithm.EDDSA, 'EdDSA'],
];

function stateName(t: Words, s: WebKeyState): string {
  return s === WebKeyState.ACTIVE ? t.keyActive : s === WebKeyState.INITIAL ? t.keyInitial : t.keyInactive;
}

/**
 * The signing keys and their rotation: a new key is published at once and signs once activated; the
 * previous one is retired (published until its tokens expire). The server refuses deleting the active key.
 */
export function SigningKeys(props: { canWrite: boolean }) {
  const t = useWords();
  const keys = useQuery(InstanceService.method.listWebKeys, {});
  const [pending, setPending] = useState<Pending>();
  const done = () => setPending(undefined);
  const mutations = {
    activate: useChange(InstanceService.method.activateWebKey, done),
    delete: useChange(InstanceService.method.deleteWebKey, done),
  };
  const actionError = Object.values(mutations).find((m) => m.error)?.error;
  const run = ({ key, action }: Pending) => {
    for (const m of Object.values(mutations)) m.reset();
    mutations[action].mutate({ keyId: key.id }, { onError: done });
  };
  return (
    <>
      <div className="section-head">
        <h2 id="keys-title">{t.signingKeys}</h2>
        {props.canWrite && (
          <CreateInDialog id="key-create" label={t.newSigningKey}>
            {(close) => <NewKey onDone={close} />}
          </CreateInDialog>
        )}
      </div>
      {actionError && <Failure error={actionError} />}
      {keys.isPending ? (
        <Loading />
      ) : keys.error ? (
        <Failure error={keys.error} />
      ) : (
        <DataTable
          rows={keys.data.webKeys}
          rowKey={(k) => k.id}
          columns={[
            { header: t.keyId, cell: (k) => <code>{k.id}</code> },
            { header: t.algorithm, cell: (k) => ALGORITHMS.find(([v]) => v === k.algorithm)?.[1] ?? '' },
            { header: t.state, cell: (k) => stateName(t, k.state) },
            { header: t.created, cell: (k) => dateCell(k.creationDate && timestampDate(k.creationDate)) },
          ]}
          actions={(key) =>
            props.canWrite && (
              <>
                {key.state === WebKeyState.INITIAL && (
                  <button type="button" onClick={() => setPending({ key, action: 'activate' })}>
                    {t.activate}
                  </button>
                )}
                <button type="button" className="danger" onClick={() => setPending({ key, action: 'delete' })}>
                  {t.delete}
                </button>
              </>
            )
          }
        />
      )}
      {pending && (
        <Confirm
          question={
            pending.action === 'activate' ? t.confirmActivateKey(pending.key.id) : t.confirmDeleteKey(pending.key.id)
          }
          action={t[pending.action]}
          onConfirm={() => run(pending)}
          onCancel={done}
        />
      )}
    </>
  );
}

/** A new key: published at once, signing only once activated. */
function NewKey({ onDone }: { onDone: () => void }) {
  const t = useWords();
  const [algorithm, setAlgorithm] = useState(WebKeyAlgorithm.UNSPECIFIED);
  const create = useChange(InstanceService.method.createWebKey, onDone);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ algorithm });
  };
  return (
    <form className="dialog-form" onSubmit={submit}>
      <Field id="key-algorithm" label={t.algorithm}>
        <select id="key-algorithm" value={algorithm} onChange={(e) => setAlgorithm(Number(e.target.value))}>
          <option value={WebKeyAlgorithm.UNSPECIFIED}>{t.instanceDefault}</option>
          {ALGORITHMS.map(([v, name]) => (
            <option key={v} value={v}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      {create.error && <Failure error={create.error} />}
      <DialogActions onCancel={onDone} submit={t.create} pending={create.isPending} />
    </form>
  );
}
