/** @jsxImportSource react */
import { type ReactNode, useState } from 'react';
import { useWords } from '../context';

/**
 * A value with a button that copies it; says when it was copied (screen readers hear it too). `name` tells
 * the button apart from the other copy buttons of the page ("Copy Client ID").
 */
export function CopyValue({ value, testId, name }: { value: string; testId?: string; name?: string }) {
  const t = useWords();
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(value).then(() => setCopied(true));
  };
  return (
    <span className="copy-value">
      <code data-testid={testId}>{value}</code>
      <button type="button" className="small" onClick={copy} aria-label={name ? t.copyNamed(name) : undefined}>
        {t.copy}
      </button>
      <span role="status">{copied ? t.copied : ''}</span>
    </span>
  );
}

/** A block of code (a snippet to paste) with a button that copies all of it. */
export function CopyBlock({ code, name, testId }: { code: string; name: string; testId?: string }) {
  const t = useWords();
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(code).then(() => setCopied(true));
  };
  return (
    <div className="copy-block">
      <pre className="snippet" data-testid={testId}>
        <code>{code}</code>
      </pre>
      <p className="copy-actions">
        <button type="button" onClick={copy} aria-label={t.copyNamed(name)}>
          {t.copy}
        </button>{' '}
        <span role="status">{copied ? t.copied : ''}</span>
      </p>
    </div>
  );
}

/**
 * Credentials the server hands out once (a new client id and secret): shown with copy buttons until the
 * person confirms they have them; after that the page has no way to show the secret again.
 */
export function ShownOnce(props: {
  clientId?: string;
  clientSecret?: string;
  onDone: () => void;
  children?: ReactNode;
}) {
  const t = useWords();
  return (
    <section className="credentials" aria-labelledby="shown-once-title">
      <h3 id="shown-once-title">{props.clientSecret ? t.credentialsOnce : t.appCreated}</h3>
      <dl className="facts">
        {props.clientId && (
          <>
            <dt>{t.clientId}</dt>
            <dd>
              <CopyValue value={props.clientId} testId="client-id" name={t.clientId} />
            </dd>
          </>
        )}
        {props.clientSecret && (
          <>
            <dt>{t.clientSecret}</dt>
            <dd>
              <CopyValue value={props.clientSecret} testId="client-secret" name={t.clientSecret} />
            </dd>
          </>
        )}
      </dl>
      {props.children}
      <p>
        <button type="button" onClick={props.onDone}>
          {props.clientSecret ? t.copiedIt : t.close}
        </button>
      </p>
    </section>
  );
}
