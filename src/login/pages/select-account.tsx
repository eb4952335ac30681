import { Layout, type PageProps, StepForm } from './layout';

export interface AccountChoice {
  sessionId: string;
  loginName: string;
  displayName: string;
  preselected: boolean;
}

export function SelectAccountPage(p: PageProps & { authRequest: string; csrf: string; accounts: AccountChoice[] }) {
  return (
    <Layout {...p} title={p.t.selectAccountTitle}>
      <StepForm action="/ui/login/accounts" authRequest={p.authRequest} csrf={p.csrf}>
        <ul class="accounts">
          {p.accounts.map((a) => (
            <li>
              <button
                type="submit"
                name="sessionId"
                value={a.sessionId}
                autofocus={a.preselected || undefined}
                aria-label={`${a.displayName} (${a.loginName})`}
              >
                <strong>{a.displayName}</strong>
                <br />
                <span>{a.loginName}</span>
              </button>
            </li>
          ))}
        </ul>
      </StepForm>
      <p>
        <a href={`/ui/login/login?authRequest=${encodeURIComponent(p.authRequest)}&other=1`}>{p.t.otherAccount}</a>
      </p>
    </Layout>
  );
}
