/** @jsxImportSource react */
import { type ReactNode, useState } from 'react';
import { useWords } from '../context';

/** A value with a button that copies it; says when it was copied (screen readers hear it too). */
export function CopyValue({ value, testId }: { value: string; testId: string }) {
  const t = useWords();
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(value).then(() => setCopied(true));
  };
  return (
    <span className="copy-value">
      <code data-testid={testId}>{value}</code>
      <button type="button" onClick={copy}>
        {t.copy}
      </button>
      <span role="status">{copied ? t.copied : ''}</span>
    </span>
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
              <CopyValue value={props.clientId} testId="client-id" />
            </dd>
          </>
        )}
        {props.clientSecret && (
          <>
            <dt>{t.clientSecret}</dt>
            <dd>
              <CopyValue value={props.clientSecret} testId="client-secret" />
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
