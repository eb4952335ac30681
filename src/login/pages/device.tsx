import { DEVICE_CONSENT_STEP, DEVICE_PAGE } from '../device/paths';
import { ErrorMessage, Layout, MainInput, type PageProps, StepForm } from './layout';

/** The page of the verification URI: one field for the user code (prefilled from verification_uri_complete). */
export function DeviceCodePage(p: PageProps & { csrf: string; userCode?: string; error?: string }) {
  return (
    <Layout {...p} title={p.t.deviceTitle}>
      <p>{p.t.deviceText}</p>
      <ErrorMessage text={p.error} />
      <form method="post" action={DEVICE_PAGE}>
        <input type="hidden" name="csrf" value={p.csrf} />
        <MainInput
          id="user_code"
          label={p.t.deviceCodeLabel}
          value={p.userCode ?? ''}
          autocomplete="one-time-code"
          error={p.error}
          hintId="user_code-hint"
          extra={{ autocapitalize: 'characters', spellcheck: 'false' }}
        />
        <p class="hint" id="user_code-hint">
          {p.t.deviceCodeHint}
        </p>
        <button type="submit">{p.t.next}</button>
      </form>
    </Layout>
  );
}

/** "Allow <app> on your device?": the signed-in user approves or denies the device. */
export function DeviceConsentPage(
  p: PageProps & { authRequest: string; csrf: string; appName: string; user: string; scopes: string[] },
) {
  const fill = (s: string) => s.replaceAll('{name}', p.appName).replaceAll('{user}', p.user);
  return (
    <Layout {...p} title={fill(p.t.deviceConsentTitle)}>
      <p>{fill(p.t.deviceConsentText)}</p>
      {p.scopes.length > 0 && <p class="hint">{p.t.deviceConsentScopes.replace('{scopes}', p.scopes.join(', '))}</p>}
      <StepForm action={`/ui/login/${DEVICE_CONSENT_STEP}`} authRequest={p.authRequest} csrf={p.csrf}>
        <button type="submit" name="decision" value="allow">
          {p.t.deviceAllow}
        </button>{' '}
        <button type="submit" name="decision" value="deny" class="secondary">
          {p.t.deviceDeny}
        </button>
      </StepForm>
    </Layout>
  );
}
