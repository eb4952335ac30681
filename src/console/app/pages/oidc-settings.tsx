/** @jsxImportSource react */
import { useMutation } from '@connectrpc/connect-query';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import {
  type Application,
  type ComplianceProblem,
  OidcAccessTokenType,
  OidcApplicationType,
  OidcAuthMethodType,
  type OidcConfiguration,
  OidcGrantType,
  OidcResponseType,
  OidcSecurityProfile,
} from '../../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../../gen/portcullis/application/v2/application_service_pb';
import { Field, fieldError } from '../components/field';
import { ShownOnce } from '../components/shown-once';
import { Failure } from '../components/status';
import { TextField } from '../components/text-field';
import { useWords } from '../context';
import type { Words } from '../i18n';
import { useChange } from '../mutations';
import { usePermissions } from '../permissions';
import { lines } from './application-kinds';
import { UriLines } from './application-wizard';

type Form = Omit<
  OidcConfiguration,
  '$typeName' | 'clientId' | 'clockSkew' | 'redirectUris' | 'postLogoutRedirectUris' | 'additionalOrigins'
> & {
  name: string;
  redirectUris: string;
  postLogoutRedirectUris: string;
  additionalOrigins: string;
  clockSkew: string;
};

const formOf = (name: string, c: OidcConfiguration): Form => ({
  ...c,
  name,
  redirectUris: c.redirectUris.join('\n'),
  postLogoutRedirectUris: c.postLogoutRedirectUris.join('\n'),
  additionalOrigins: c.additionalOrigins.join('\n'),
  clockSkew: String(Number(c.clockSkew?.seconds ?? 0n)),
});

/** Every field the form holds, named in the update mask: the save replaces them all (a list may become empty). */
const PATHS = [
  'name',
  ...[
    'redirect_uris',
    'post_logout_redirect_uris',
    'response_types',
    'grant_types',
    'application_type',
    'auth_method_type',
    'access_token_type',
    'access_token_role_assertion',
    'id_token_role_assertion',
    'id_token_userinfo_assertion',
    'clock_skew',
    'development_mode',
    'additional_origins',
    'backchannel_logout_uri',
    'backchannel_logout_session_required',
    'frontchannel_logout_uri',
    'frontchannel_logout_session_required',
    'require_pushed_authorization_requests',
    'dpop_bound_access_tokens',
    'security_profile',
    // sent unchanged by those who may not change it: the server refuses only a change
    'api_access',
  ].map((p) => `oidc.${p}`),
];

function request(applicationId: string, f: Form, validateOnly: boolean) {
  const { name, $typeName: _, clockSkew, ...c } = f as Form & { $typeName?: string };
  const seconds = Number(clockSkew);
  return {
    applicationId,
    name,
    validateOnly,
    updateMask: { paths: PATHS },
    configuration: {
      case: 'oidc' as const,
      value: {
        ...c,
        redirectUris: lines(f.redirectUris),
        postLogoutRedirectUris: lines(f.postLogoutRedirectUris),
        additionalOrigins: lines(f.additionalOrigins),
        clockSkew: { seconds: BigInt(Number.isFinite(seconds) ? Math.trunc(seconds) : -1) },
      },
    },
  };
}

/**
 * An OIDC application's settings. While the person edits, the server evaluates the draft
 * (UpdateApplication with validate_only, debounced) and its compliance problems show at once, at the
 * redirect URIs when they concern them; Save stores the draft, the server's messages at the fields.
 */
export function OidcSettings(props: { app: Application; mayWrite: boolean }) {
  const { app } = props;
  const t = useWords();
  const config = app.configuration.value as OidcConfiguration;
  // whether the application is an API client, and an API client's settings, are the instance's (iam.write)
  const mayGrantApi = usePermissions().can('iam.write');
  const mayWrite = props.mayWrite && (mayGrantApi || !config.apiAccess);
  const [form, setForm] = useState(() => formOf(app.name, config));
  const [edited, setEdited] = useState(false);
  // the problems of the latest draft the server evaluated (or saved)
  const [problems, setProblems] = useState<ComplianceProblem[]>(app.complianceProblems);
  const check = useMutation(ApplicationService.method.updateApplication, {
    onSuccess: (r) => setProblems(r.complianceProblems),
  });
  const save = useChange(ApplicationService.method.updateApplication);
  const set =
    <K extends keyof Form>(key: K) =>
    (value: Form[K]) => {
      setForm((f) => ({ ...f, [key]: value }));
      setEdited(true);
    };
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new draft is what triggers the check
  useEffect(() => {
    if (!edited || !mayWrite) return;
    const timer = setTimeout(() => check.mutate(request(app.applicationId, form, true)), 400);
    return () => clearTimeout(timer);
  }, [form, edited]);
  const about = (prefix: string) => problems.filter((p) => p.key.startsWith(prefix));
  const others = problems.filter((p) => !/^OIDC\.(PostLogout)?RedirectUris\./.test(p.key));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(request(app.applicationId, form, false), { onSuccess: (r) => setProblems(r.complianceProblems) });
  };
  const err = (field: string) => fieldError(save.error, field) ?? fieldError(check.error, field);
  const known = PATHS.some((p) => err(p));
  const checkbox = (key: keyof Form, label: string, disabled = false) => (
    <label>
      <input
        type="checkbox"
        checked={form[key] as boolean}
        disabled={disabled}
        onChange={(e) => set(key)(e.target.checked as never)}
      />
      {` ${label}`}
    </label>
  );
  return (
    <form onSubmit={submit} aria-labelledby="app-settings-title">
      <h2 id="app-settings-title">{t.settings}</h2>
      <fieldset className="settings" disabled={!mayWrite}>
        <TextField id="app-name" label={t.name} value={form.name} onChange={set('name')} error={err('name')} />
        <UriLines
          id="app-redirects"
          label={t.redirectUris}
          value={form.redirectUris}
          onChange={set('redirectUris')}
          error={err('oidc.redirect_uris')}
          note={<ProblemList problems={about('OIDC.RedirectUris.')} />}
        />
        <UriLines
          id="app-logout-redirects"
          label={t.postLogoutUris}
          value={form.postLogoutRedirectUris}
          onChange={set('postLogoutRedirectUris')}
          error={err('oidc.post_logout_redirect_uris')}
          note={<ProblemList problems={about('OIDC.PostLogoutRedirectUris.')} />}
        />
        <UriLines
          id="app-origins"
          label={t.additionalOrigins}
          value={form.additionalOrigins}
          onChange={set('additionalOrigins')}
          error={err('oidc.additional_origins')}
        />
        <EnumSelect
          id="app-type"
          label={t.appKind}
          value={form.applicationType}
          onChange={set('applicationType')}
          options={appTypes(t)}
        />
        <EnumSelect
          id="app-auth"
          label={t.authMethod}
          value={form.authMethodType}
          onChange={set('authMethodType')}
          options={authMethods(t)}
        />
        <EnumSelect
          id="app-token-type"
          label={t.accessTokenType}
          value={form.accessTokenType}
          onChange={set('accessTokenType')}
          options={[
            [OidcAccessTokenType.BEARER, t.tokenOpaque],
            [OidcAccessTokenType.JWT, t.tokenJwt],
          ]}
        />
        <EnumSelect
          id="app-profile"
          label={t.securityProfile}
          value={form.securityProfile || OidcSecurityProfile.NONE}
          onChange={set('securityProfile')}
          options={[
            [OidcSecurityProfile.NONE, t.profileNone],
            [OidcSecurityProfile.FAPI_2_0, 'FAPI 2.0'],
          ]}
          error={err('oidc.security_profile')}
        />
        <TextField
          id="app-clock-skew"
          label={t.clockSkew}
          type="number"
          value={form.clockSkew}
          onChange={set('clockSkew')}
          error={err('oidc.clock_skew')}
        />
        <Checks legend={t.responseTypes}>
          {enumChecks(form.responseTypes, set('responseTypes'), [
            [OidcResponseType.CODE, 'code'],
            [OidcResponseType.ID_TOKEN, 'id_token'],
            [OidcResponseType.ID_TOKEN_TOKEN, 'id_token token'],
          ])}
        </Checks>
        <Checks legend={t.grantTypes}>
          {enumChecks(form.grantTypes, set('grantTypes'), [
            [OidcGrantType.AUTHORIZATION_CODE, 'authorization_code'],
            [OidcGrantType.IMPLICIT, 'implicit'],
            [OidcGrantType.REFRESH_TOKEN, 'refresh_token'],
            [OidcGrantType.TOKEN_EXCHANGE, 'token-exchange'],
            [OidcGrantType.DEVICE_CODE, 'device_code'],
          ])}
        </Checks>
        <Checks legend={t.tokenContents}>
          {checkbox('accessTokenRoleAssertion', t.rolesInAccessToken)}
          {checkbox('idTokenRoleAssertion', t.rolesInIdToken)}
          {checkbox('idTokenUserinfoAssertion', t.userinfoInIdToken)}
        </Checks>
        <Checks legend={t.securityLegend}>
          {checkbox('developmentMode', t.developmentMode)}
          {checkbox('requirePushedAuthorizationRequests', t.requirePar)}
          {checkbox('dpopBoundAccessTokens', t.requireDpop)}
          {checkbox('apiAccess', t.apiAccess, !mayGrantApi)}
        </Checks>
        <TextField
          id="app-backchannel"
          label={t.backchannelLogoutUri}
          value={form.backchannelLogoutUri}
          onChange={set('backchannelLogoutUri')}
          error={err('oidc.backchannel_logout_uri')}
        />
        <TextField
          id="app-frontchannel"
          label={t.frontchannelLogoutUri}
          value={form.frontchannelLogoutUri}
          onChange={set('frontchannelLogoutUri')}
          error={err('oidc.frontchannel_logout_uri')}
        />
        <Checks legend={t.logoutOptions}>
          {checkbox('backchannelLogoutSessionRequired', t.backchannelSid)}
          {checkbox('frontchannelLogoutSessionRequired', t.frontchannelSid)}
        </Checks>
      </fieldset>
      <div className="problems-box" aria-live="polite">
        {others.length > 0 && (
          <>
            <h3>{t.problems}</h3>
            <ProblemList problems={others} />
          </>
        )}
      </div>
      {mayWrite && (
        <p>
          <button type="submit" disabled={save.isPending}>
            {t.save}
          </button>{' '}
          {save.isSuccess && !save.data.clientSecret && <span role="status">{t.saved}</span>}
        </p>
      )}
      {save.data?.clientSecret && <ShownOnce clientSecret={save.data.clientSecret} onDone={() => save.reset()} />}
      {save.error && !known && <Failure error={save.error} />}
    </form>
  );
}

function ProblemList({ problems }: { problems: ComplianceProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="problems">
      {problems.map((p) => (
        <li key={p.key + p.message} data-key={p.key}>
          {p.message}
        </li>
      ))}
    </ul>
  );
}

function Checks({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

function enumChecks<E extends number>(values: E[], onChange: (v: E[]) => void, options: [E, string][]) {
  return options.map(([value, label]) => (
    <label key={value}>
      <input
        type="checkbox"
        checked={values.includes(value)}
        onChange={(e) => onChange(e.target.checked ? [...values, value] : values.filter((v) => v !== value))}
      />{' '}
      <code>{label}</code>
    </label>
  ));
}

export function EnumSelect<E extends number>(props: {
  id: string;
  label: string;
  value: E;
  onChange: (v: E) => void;
  options: [E, string][];
  error?: string;
}) {
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(Number(e.target.value) as E)}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </Field>
  );
}

const appTypes = (t: Words): [OidcApplicationType, string][] => [
  [OidcApplicationType.WEB, t.appWeb],
  [OidcApplicationType.USER_AGENT, t.appBrowser],
  [OidcApplicationType.NATIVE, t.appNative],
];

const authMethods = (t: Words): [OidcAuthMethodType, string][] => [
  [OidcAuthMethodType.BASIC, t.authBasic],
  [OidcAuthMethodType.POST, t.authPost],
  [OidcAuthMethodType.NONE, t.authNone],
  [OidcAuthMethodType.PRIVATE_KEY_JWT, t.authKey],
];
