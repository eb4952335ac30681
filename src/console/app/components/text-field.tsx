/** @jsxImportSource react */
import type { ReactNode } from 'react';
import { Field } from './field';

/**
 * A labelled text input whose server message, if any, is shown under it and tied to it for screen readers;
 * a hint (such as the rules a new password must meet) stands between the label and the input and is tied too.
 */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  type?: string;
  autoComplete?: string;
  hint?: ReactNode;
}) {
  const described = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      {props.hint && (
        <div className="hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      )}
      <input
        id={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described || undefined}
      />
    </Field>
  );
}
