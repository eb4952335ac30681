import { createHash } from 'node:crypto';
import { Layout, type PageProps } from './layout';

/**
 * Goes on to the client once every iframe has loaded, or after three seconds whatever they do: a
 * client whose logout page hangs must not keep the user here. Without JavaScript the link does it.
 */
const RETURN_SCRIPT =
  '(function(){var a=document.getElementById("continue"),f=document.querySelectorAll("iframe"),' +
  'n=f.length,done=false,go=function(){if(!done){done=true;location.replace(a.href)}};' +
  'if(!n)return go();f.forEach(function(x){x.addEventListener("load",function(){if(--n===0)go()})});' +
  'setTimeout(go,3000)})()';
export const RETURN_SCRIPT_HASH = createHash('sha256').update(RETURN_SCRIPT).digest('base64');

/**
 * The logged-out page with the front-channel logout iframes of the ended sessions' clients
 * (Front-Channel Logout 1.0 §3), hidden; with `returnTo`, the page before the post-logout redirect.
 */
export function LoggedOutPage(p: PageProps & { frames: string[]; returnTo?: string }) {
  return (
    <Layout {...p} title={p.t.loggedOutTitle}>
      <p>{p.returnTo ? p.t.loggedOutReturnText : p.t.loggedOutText}</p>
      {p.frames.map((src) => (
        <iframe src={src} hidden width="0" height="0" title="logout" />
      ))}
      {p.returnTo && (
        <>
          <p>
            <a id="continue" href={p.returnTo}>
              {p.t.loggedOutContinue}
            </a>
          </p>
          <script dangerouslySetInnerHTML={{ __html: RETURN_SCRIPT }} />
        </>
      )}
    </Layout>
  );
}
