/** @jsxImportSource react */
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { type PublicKeyCredentialCreationOptionsJSON, startRegistration } from '@simplewebauthn/browser';
import { type FormEvent, useState } from 'react';
import { type Passkey, PasskeyAuthenticatorType } from '../../../../gen/portcullis/user/v2/passkeys_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { Confirm } from '../components/confirm';
import { DataTable, dateCell } from '../components/data-table';
import { fieldError } from '../components/field';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useUser, useWords } from '../context';
import { useChange } from '../mutations';

/**
 * The user's passkeys: RegisterPasskey gives the options for navigator.credentials.create() (through
 * @simplewebauthn/browser), VerifyPasskeyRegistration takes the browser's answer with a name.
 */
export function Passkeys() {
  const t = useWords();
  const { userId } = useUser();
  const list = useQuery(UserService.method.listPasskeys, { userId });
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState<Passkey>();
  const register = useChange(UserService.method.registerPasskey);
  const verify = useChange(UserService.method.verifyPasskeyRegistration, () => setName(''));
  const remove = useChange(UserService.method.removePasskey, () => setRemoving(undefined));
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(undefined);
    setBusy(true);
    try {
      const started = await register.mutateAsync({ userId, authenticator: PasskeyAuthenticatorType.PASSKEY });
      const optionsJSON =
        started.publicKeyCredentialCreationOptions as unknown as PublicKeyCredentialCreationOptionsJSON;
      const credential = await startRegistration({ optionsJSON });
      await verify.mutateAsync({
        userId,
        passkeyId: started.passkeyId,
        publicKeyCredential: credential as unknown as JsonObject,
        passkeyName: name,
      });
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  const nameError = fieldError(failure, 'passkey_name');
  const ready = (list.data?.passkeys ?? []).filter((p) => p.state === 'ready');
  return (
    <div className="inline-form" aria-busy={list.isPending}>
      <h2>{t.passkeys}</h2>
      {list.error && <Failure error={list.error} />}
      {ready.length > 0 && (
        <DataTable
          rows={ready}
          rowKey={(p) => p.id}
          columns={[
            { header: t.name, cell: (p) => p.name },
            { header: t.created, cell: (p) => dateCell(p.creationDate && timestampDate(p.creationDate)) },
            { header: t.lastUsed, cell: (p) => dateCell(p.lastUsedDate && timestampDate(p.lastUsedDate)) },
          ]}
          actions={(p) => (
            <button type="button" className="danger" onClick={() => setRemoving(p)}>
              {t.remove}
            </button>
          )}
        />
      )}
      <form onSubmit={add}>
        <TextField id="passkey-name" label={t.passkeyName} value={name} onChange={setName} error={nameError} />
        <button type="submit" disabled={busy}>
          {t.addPasskey}
        </button>
      </form>
      {failure !== undefined && !nameError && <Failure error={failure} />}
      {remove.error && <Failure error={remove.error} />}
      {removing && (
        <Confirm
          question={t.confirmRemovePasskey(removing.name)}
          action={t.remove}
          onConfirm={() => remove.mutate({ userId, passkeyId: removing.id })}
          onCancel={() => setRemoving(undefined)}
        />
      )}
    </div>
  );
}
