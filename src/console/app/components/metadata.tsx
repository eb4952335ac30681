/** @jsxImportSource react */
import { type FormEvent, useState } from 'react';
import { useWords } from '../context';
import { Confirm } from './confirm';
import { DataTable } from './data-table';
import { fieldError } from './field';
import { Failure } from './status';
import { TextField } from './text-field';

/** Metadata values are bytes; the console reads and writes them as UTF-8 text. */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Key/value metadata of a user or an organization: the list, a form to set one entry and a confirmed
 * remove. The caller supplies the API calls; changes are offered only when `allowed`.
 */
export function MetadataPart(props: {
  id: string;
  entries?: { key: string; value: Uint8Array }[];
  error?: unknown;
  allowed: boolean;
  setError?: unknown;
  removeError?: unknown;
  onSet: (key: string, value: Uint8Array) => void;
  onRemove: (key: string) => void;
}) {
  const t = useWords();
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [doomed, setDoomed] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSet(key, encoder.encode(value));
    setKey('');
    setValue('');
  };
  // the server names the entry's fields by their place in the request (metadata[0].key)
  const keyError = fieldError(props.setError, 'metadata') ?? fieldError(props.setError, 'key');
  return (
    <section aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{t.metadata}</h2>
      {props.allowed && (
        <form className="inline-form" onSubmit={submit} aria-label={t.setMetadata}>
          <TextField id={`${props.id}-key`} label={t.metadataKey} value={key} onChange={setKey} error={keyError} />
          <TextField id={`${props.id}-value`} label={t.metadataValue} value={value} onChange={setValue} />
          <button type="submit">{t.setMetadata}</button>
          {props.setError && !keyError ? <Failure error={props.setError} /> : null}
        </form>
      )}
      {props.error || props.removeError ? <Failure error={props.error ?? props.removeError} /> : null}
      {props.entries &&
        (props.entries.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <DataTable
            rows={props.entries}
            rowKey={(m) => m.key}
            columns={[
              { header: t.metadataKey, cell: (m) => m.key },
              { header: t.metadataValue, cell: (m) => decoder.decode(m.value) },
            ]}
            actions={(m) =>
              props.allowed && (
                <button type="button" className="danger" onClick={() => setDoomed(m.key)}>
                  {t.remove}
                </button>
              )
            }
          />
        ))}
      {doomed && (
        <Confirm
          question={t.confirmRemoveMetadata(doomed)}
          action={t.remove}
          onConfirm={() => {
            props.onRemove(doomed);
            setDoomed(undefined);
          }}
          onCancel={() => setDoomed(undefined)}
        />
      )}
    </section>
  );
}
