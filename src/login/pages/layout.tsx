import type { Child } from 'hono/jsx';
import type { Locale, Messages } from '../i18n';

export interface PageProps {
  locale: Locale;
  t: Messages;
}

/** Shared frame: language, title, a skip link, one main landmark; styles from a same-origin sheet. */
export function Layout(props: PageProps & { title: string; children: Child }) {
  return (
    <html lang={props.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <link rel="stylesheet" href="/ui/login/style.css" />
      </head>
      <body>
        <a class="skip" href="#main">
          {props.t.skipToForm}
        </a>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

export function ErrorMessage(props: { text?: string }) {
  if (!props.text) return null;
  return (
    <p class="error" role="alert" id="form-error">
      {props.text}
    </p>
  );
}

export function Hidden(props: { authRequest: string; csrf: string }) {
  return (
    <>
      <input type="hidden" name="authRequest" value={props.authRequest} />
      <input type="hidden" name="csrf" value={props.csrf} />
    </>
  );
}

/**
 * A step's form: it posts to the step's address, with the auth request and the CSRF token; the
 * page's error, if any, stands right above it.
 */
export function StepForm(props: {
  action: string;
  authRequest: string;
  csrf: string;
  error?: string;
  children: Child;
}) {
  return (
    <>
      <ErrorMessage text={props.error} />
      <form method="post" action={props.action}>
        <Hidden authRequest={props.authRequest} csrf={props.csrf} />
        {props.children}
      </form>
    </>
  );
}

/**
 * The one field a page asks for: labelled, required, focused, and described by the page's error
 * (or by its own hint).
 */
export function MainInput(props: {
  id: string;
  label: string;
  type?: string;
  autocomplete: string;
  error?: string;
  value?: string;
  hintId?: string;
  extra?: Record<string, string | boolean>;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        type={props.type ?? 'text'}
        id={props.id}
        name={props.id}
        value={props.value}
        autocomplete={props.autocomplete}
        {...props.extra}
        required
        autofocus
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.hintId ?? (props.error ? 'form-error' : undefined)}
      />
    </>
  );
}

export const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1f23}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.5rem;margin-top:0}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=password],input[type=email]{width:100%;box-sizing:border-box;padding:.6rem;\
border:1px solid #6a737d;border-radius:4px;font-size:1rem}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:4px;background:#0b5fff;\
color:#fff;cursor:pointer}
button.link{background:none;color:#0b5fff;padding:0;text-decoration:underline}
button.secondary{background:#eef2ff;color:#1b1f23}
.error{color:#b00020;font-weight:600}
.hint{color:#586069;font-size:.9rem}
ul.accounts{list-style:none;padding:0}
ul.accounts li{margin:.5rem 0}
ul.accounts button{width:100%;text-align:left;background:#eef2ff;color:#1b1f23}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem}
:focus-visible{outline:3px solid #0b5fff;outline-offset:2px}
`;
