/** @jsxImportSource react */
import { Field } from './field';

/** A labelled text input whose server message, if any, is shown under it and tied to it for screen readers. */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  type?: string;
  autoComplete?: string;
}) {
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      <input
        id={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
      />
    </Field>
  );
}
