/** @jsxImportSource react */
import { ConnectError } from '@connectrpc/connect';
import type { ReactNode } from 'react';

/**
 * The server's validation message next to the field it names: INVALID_ARGUMENT messages start with the
 * request field's proto name (`name is required`), so a form shows each under its input.
 */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  return error.rawMessage.startsWith(`${field} `) || error.rawMessage.startsWith(`${field}[`)
    ? error.rawMessage
    : undefined;
}

/** A labelled input with its error announced to screen readers. */
export function Field(props: { id: string; label: string; error?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.error && (
        <p className="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      )}
    </div>
  );
}
