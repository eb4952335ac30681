import { Layout, type PageProps, StepForm } from './layout';

/** One choice of a chooser: a link to the page of a factor. */
export interface FactorLink {
  href: string;
  label: string;
}

const links = (choices: FactorLink[]) => (
  <ul class="accounts">
    {choices.map((c) => (
      <li>
        <a href={c.href}>{c.label}</a>
      </li>
    ))}
  </ul>
);

/** The second factors the user can use now. */
export function MfaPage(p: PageProps & { choices: FactorLink[] }) {
  return (
    <Layout {...p} title={p.t.mfaTitle}>
      <p>{p.t.mfaText}</p>
      {links(p.choices)}
    </Layout>
  );
}

/** The factors the user can set up, and "skip for now" when the policy allows it. */
export function MfaSetupPage(
  p: PageProps & { authRequest: string; csrf: string; choices: FactorLink[]; skippable: boolean },
) {
  return (
    <Layout {...p} title={p.t.mfaSetupTitle}>
      <p>{p.t.mfaSetupText}</p>
      {links(p.choices)}
      {p.skippable && (
        <StepForm action="/ui/login/mfa-setup/skip" authRequest={p.authRequest} csrf={p.csrf}>
          <button type="submit" class="link">
            {p.t.mfaSetupSkip}
          </button>
        </StepForm>
      )}
    </Layout>
  );
}
