/** @jsxImportSource react */
import { TransportProvider } from '@connectrpc/connect-query';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { type SignedIn, signIn } from './auth';
import { AccountApp } from './account/account-app';
import { ConsoleApp } from './console-app';
import { IssuerContext, UserContext, WordsContext } from './context';
import { wordsFor } from './i18n';
import { apiTransport } from './transport';
import './console.css';

/**
 * Entry of the console and the account page: the server's page names the app, the issuer and the
 * console's client id on #root; sign in first, then render with the API transport.
 */
async function main() {
  const root = document.getElementById('root')!;
  const { app, issuer, clientId } = root.dataset as Record<string, string>;
  const t = wordsFor(document.documentElement.lang);
  const base = app === 'account' ? '/ui/account' : '/ui/console';
  root.textContent = t.signingIn;
  const user: SignedIn | undefined = await signIn({
    issuer,
    clientId,
    redirectUri: `${issuer}${base}/callback`,
    home: `${issuer}${base}/`,
  });
  if (!user) return; // on the way to the login
  const queries = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
  createRoot(root).render(
    <StrictMode>
      <WordsContext.Provider value={t}>
        <UserContext.Provider value={user}>
          <IssuerContext.Provider value={issuer}>
            <TransportProvider transport={apiTransport(user.accessToken)}>
              <QueryClientProvider client={queries}>
                {app === 'account' ? <AccountApp base={base} /> : <ConsoleApp base={base} />}
              </QueryClientProvider>
            </TransportProvider>
          </IssuerContext.Provider>
        </UserContext.Provider>
      </WordsContext.Provider>
    </StrictMode>,
  );
}

main().catch((err) => {
  const root = document.getElementById('root')!;
  root.textContent = String(err instanceof Error ? err.message : err);
  root.setAttribute('role', 'alert');
});
