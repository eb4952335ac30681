/** @jsxImportSource react */
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiAuthMethodType } from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { Field, fieldError } from '../components/field';
import { ShownOnce } from '../components/shown-once';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import { useChange } from '../mutations';
import { KINDS, type Kind, kindLabel, lines, OIDC_DEFAULTS } from './application-kinds';

/**
 * A new application in three steps: its kind, then its name and addresses (the kind's defaults fill
 * the rest), then what the server generated (the secret only this once). Leaving the last step opens
 * the application.
 */
export function ApplicationWizard(props: {
  projectId: string;
  onCancel: () => void;
  onCreated: (id: string) => void;
  onOpen: (id: string) => void;
}) {
  const t = useWords();
  const [step, setStep] = useState<1 | 2>(1);
  const [kind, setKind] = useState<Kind>('web');
  const [name, setName] = useState('');
  const [redirects, setRedirects] = useState('');
  const [logoutRedirects, setLogoutRedirects] = useState('');
  const [apiAuth, setApiAuth] = useState(ApiAuthMethodType.BASIC);
  const [metadataUrl, setMetadataUrl] = useState('');
  const create = useChange(ApplicationService.method.createApplication);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (step === 1) return setStep(2);
    create.mutate(
      { projectId: props.projectId, name, configuration: configuration() },
      { onSuccess: (r) => props.onCreated(r.applicationId) },
    );
  };
  const configuration = () => {
    if (kind === 'api') return { case: 'api' as const, value: { authMethodType: apiAuth } };
    if (kind === 'saml')
      return { case: 'saml' as const, value: { metadata: { case: 'metadataUrl' as const, value: metadataUrl } } };
    const { example: _, ...defaults } = OIDC_DEFAULTS[kind];
    return {
      case: 'oidc' as const,
      value: {
        ...defaults,
        grantTypes: [...defaults.grantTypes],
        responseTypes: [...defaults.responseTypes],
        redirectUris: lines(redirects),
        postLogoutRedirectUris: lines(logoutRedirects),
      },
    };
  };

  if (create.data) {
    const result = create.data.configuration;
    const credentials = result.case === 'oidc' || result.case === 'api' ? result.value : undefined;
    return (
      <section aria-labelledby="app-wizard-step">
        <h3 id="app-wizard-step" className="step">
          {t.wizardStep(3, t.wizardResult)}
        </h3>
        <ShownOnce
          clientId={credentials?.clientId}
          clientSecret={credentials?.clientSecret}
          onDone={() => props.onOpen(create.data.applicationId)}
        >
          {result.case === 'oidc' && result.value.complianceProblems.length > 0 && (
            <ul className="problems">
              {result.value.complianceProblems.map((p) => (
                <li key={p.key + p.message}>{p.message}</li>
              ))}
            </ul>
          )}
        </ShownOnce>
      </section>
    );
  }

  const err = (field: string) => fieldError(create.error, field);
  const shown = ['name', 'oidc.redirect_uris', 'oidc.post_logout_redirect_uris', 'saml.metadata_url'];
  const otherError = create.error && !shown.some((f) => err(f));
  const oidc = kind === 'web' || kind === 'browser' || kind === 'native';
  return (
    <form className="dialog-form wizard" onSubmit={submit} aria-labelledby="app-wizard-step">
      <h3 id="app-wizard-step" className="step">
        {t.wizardStep(step, step === 1 ? t.appType : t.wizardDetails)}
      </h3>
      {step === 1 ? (
        <fieldset className="choices">
          <legend>{t.appType}</legend>
          {KINDS.map((k) => (
            <label key={k}>
              <input type="radio" name="app-kind" value={k} checked={kind === k} onChange={() => setKind(k)} />{' '}
              {kindLabel(t, k)}
            </label>
          ))}
        </fieldset>
      ) : (
        <>
          <p className="ok">{kindLabel(t, kind)}</p>
          <TextField id="app-name" label={t.name} value={name} onChange={setName} error={err('name')} />
          {oidc && (
            <>
              <UriLines
                id="app-redirects"
                label={t.redirectUris}
                value={redirects}
                onChange={setRedirects}
                placeholder={OIDC_DEFAULTS[kind].example}
                error={err('oidc.redirect_uris')}
              />
              <UriLines
                id="app-logout-redirects"
                label={t.postLogoutUris}
                value={logoutRedirects}
                onChange={setLogoutRedirects}
                error={err('oidc.post_logout_redirect_uris')}
              />
            </>
          )}
          {kind === 'api' && (
            <Field id="app-api-auth" label={t.authMethod}>
              <select id="app-api-auth" value={apiAuth} onChange={(e) => setApiAuth(Number(e.target.value))}>
                <option value={ApiAuthMethodType.BASIC}>{t.authBasic}</option>
                <option value={ApiAuthMethodType.PRIVATE_KEY_JWT}>{t.authKey}</option>
              </select>
            </Field>
          )}
          {kind === 'saml' && (
            <TextField
              id="app-metadata-url"
              label={t.metadataUrl}
              value={metadataUrl}
              onChange={setMetadataUrl}
              error={err('saml.metadata_url')}
            />
          )}
        </>
      )}
      {otherError && <Failure error={create.error} />}
      <div className="actions">
        <button type="button" onClick={step === 1 ? props.onCancel : () => setStep(1)}>
          {step === 1 ? t.cancel : t.back}
        </button>
        <button type="submit" className="primary" disabled={create.isPending}>
          {step === 1 ? t.next : t.create}
        </button>
      </div>
    </form>
  );
}

/** A textarea of URIs, one per line, with the server's message about them. */
export function UriLines(props: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  placeholder?: string;
  note?: ReactNode;
}) {
  const described = [props.error && `${props.id}-error`, props.note && `${props.id}-note`].filter(Boolean).join(' ');
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      <textarea
        id={props.id}
        rows={2}
        value={props.value}
        placeholder={props.placeholder}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {props.note && (
        <div id={`${props.id}-note`} className="problems" aria-live="polite">
          {props.note}
        </div>
      )}
    </Field>
  );
}
