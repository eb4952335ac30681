/** @jsxImportSource react */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type FormEvent, useState } from 'react';
import type { ApplicationKeyFile } from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { downloadFile } from '../components/download';
import { fieldError } from '../components/field';
import { Failure, Loading } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';

/** The key file in the form clients load ({"type":"application","keyId","key","appId","clientId"}). */
function download(file: ApplicationKeyFile) {
  const json = JSON.stringify({
    type: file.type,
    keyId: file.keyId,
    key: file.key,
    appId: file.appId,
    clientId: file.clientId,
  });
  downloadFile(`${file.keyId}.json`, json);
}

/** The keys of a private_key_jwt application: add one (its file downloaded once), list them, remove one. */
export function ApplicationKeys({ applicationId, mayWrite }: { applicationId: string; mayWrite: boolean }) {
  const t = useWords();
  const keys = useQuery(ApplicationService.method.listApplicationKeys, {
    applicationId,
    pagination: { limit: 1000, asc: true },
  });
  const [expires, setExpires] = useState('');
  const [doomed, setDoomed] = useState<string>();
  const add = useChange(ApplicationService.method.createApplicationKey, () => setExpires(''));
  const remove = useChange(ApplicationService.method.deleteApplicationKey, () => setDoomed(undefined));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      // a key chosen to expire on a day is good through that day (UTC), as a machine user's key is
      { applicationId, expirationDate: expires ? timestampFromDate(new Date(`${expires}T23:59:59Z`)) : undefined },
      { onSuccess: (res) => res.keyFile && download(res.keyFile) },
    );
  };
  const expiryError = fieldError(add.error, 'expiration_date');
  return (
    <section aria-labelledby="app-keys-title">
      <h2 id="app-keys-title">{t.appKeys}</h2>
      {mayWrite && (
        <form className="inline-form" onSubmit={submit} aria-label={t.addKey}>
          <TextField
            id="key-expires"
            label={t.keyExpiresOptional}
            type="date"
            value={expires}
            onChange={setExpires}
            error={expiryError}
          />
          <button type="submit" disabled={add.isPending}>
            {t.addKey}
          </button>
          {add.data && (
            <p className="ok" role="status">
              {t.keyDownloaded(add.data.keyId)}
            </p>
          )}
          {add.error && !expiryError && <Failure error={add.error} />}
        </form>
      )}
      {remove.error && <Failure error={remove.error} />}
      {keys.isPending ? (
        <Loading />
      ) : keys.error ? (
        <Failure error={keys.error} />
      ) : (
        <DataTable
          rows={keys.data.keys}
          empty={t.emptyAppKeys}
          rowKey={(k) => k.keyId}
          columns={[
            { header: t.keyId, cell: (k) => <code>{k.keyId}</code> },
            { header: t.created, cell: (k) => dateCell(k.creationDate && timestampDate(k.creationDate)) },
            {
              header: t.expires,
              cell: (k) => (k.expirationDate ? dateCell(timestampDate(k.expirationDate)) : t.never),
            },
          ]}
          actions={(k) =>
            mayWrite && (
              <button type="button" className="danger" onClick={() => setDoomed(k.keyId)}>
                {t.remove}
              </button>
            )
          }
        />
      )}
      {doomed && (
        <Confirm
          question={t.confirmRemoveKey(doomed)}
          action={t.remove}
          onConfirm={() => remove.mutate({ applicationId, keyId: doomed })}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}
