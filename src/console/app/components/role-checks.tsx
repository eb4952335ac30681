/** @jsxImportSource react */
import { type FormEvent, useState } from 'react';
import { useWords } from '../context';
import { Dialog, DialogActions } from './dialog';
import { Failure } from './status';

/** A group of role checkboxes: ticking one adds its key to `value`, unticking removes it. */
export function RoleChecks(props: {
  id: string;
  legend: string;
  roles: { key: string; label?: string }[];
  value: string[];
  onChange: (keys: string[]) => void;
  error?: string;
}) {
  const toggle = (key: string, on: boolean) =>
    props.onChange(on ? [...props.value, key] : props.value.filter((k) => k !== key));
  return (
    <fieldset className="role-checks" id={props.id}>
      <legend>{props.legend}</legend>
      {props.roles.map((r) => (
        <label key={r.key}>
          <input
            type="checkbox"
            checked={props.value.includes(r.key)}
            onChange={(e) => toggle(r.key, e.target.checked)}
          />{' '}
          {r.label ? `${r.label} (${r.key})` : r.key}
        </label>
      ))}
      {props.error && (
        <p className="field-error" role="alert">
          {props.error}
        </p>
      )}
    </fieldset>
  );
}

/**
 * A dialog that replaces a set of roles (an authorization's, a grant's, a membership's): the ticks, Save and
 * Cancel, and the API's refusal below them.
 */
export function ChangeRoles(props: {
  id: string;
  title: string;
  roles: { key: string; label?: string }[];
  initial: string[];
  change: { isPending: boolean; error: Error | null };
  onSave: (keys: string[]) => void;
  onCancel: () => void;
}) {
  const t = useWords();
  const [keys, setKeys] = useState(props.initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSave(keys);
  };
  return (
    <Dialog id={props.id} title={props.title} onClose={props.onCancel}>
      <form className="dialog-form" onSubmit={submit}>
        <RoleChecks id={`${props.id}-roles`} legend={t.roles} roles={props.roles} value={keys} onChange={setKeys} />
        {props.change.error && <Failure error={props.change.error} />}
        <DialogActions onCancel={props.onCancel} submit={t.save} pending={props.change.isPending} />
      </form>
    </Dialog>
  );
}
