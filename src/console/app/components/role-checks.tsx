/** @jsxImportSource react */

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
