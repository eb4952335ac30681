// The hosted login's WebAuthn script, served as /ui/login/webauthn.js (bundled by src/login/webauthn-script.ts).
// It runs the ceremony a form asks for and posts the browser's credential JSON in the form's
// `credential` field; everything else stays server-rendered.
//
// <form data-webauthn="create|get" data-options="{…}">       options rendered into the page
// <form data-webauthn="get" data-options-url="/ui/login/…">  options fetched (POST authRequest + csrf)
// <form … data-autofill>                                      also offered by the login name field's autofill
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';

type Options = { optionsJSON: any; challenge?: string };

async function optionsOf(form: HTMLFormElement): Promise<Options> {
  const inline = form.dataset.options;
  if (inline) return { optionsJSON: JSON.parse(inline) };
  const body = new URLSearchParams();
  for (const name of ['authRequest', 'csrf']) body.set(name, (form.elements.namedItem(name) as HTMLInputElement).value);
  const res = await fetch(form.dataset.optionsUrl!, { method: 'POST', body, credentials: 'same-origin' });
  if (!res.ok) throw new Error(`options: HTTP ${res.status}`);
  const json = await res.json();
  return { optionsJSON: json.options, challenge: json.challenge };
}

function submit(form: HTMLFormElement, credential: unknown, challenge?: string) {
  (form.elements.namedItem('credential') as HTMLInputElement).value = JSON.stringify(credential);
  const field = form.elements.namedItem('challenge') as HTMLInputElement | null;
  if (challenge && field) field.value = challenge;
  form.submit();
}

function showError(form: HTMLFormElement) {
  const el = form.querySelector<HTMLElement>('[data-webauthn-error]');
  if (el) el.hidden = false;
}

async function ceremony(form: HTMLFormElement) {
  const { optionsJSON, challenge } = await optionsOf(form);
  const credential =
    form.dataset.webauthn === 'create'
      ? await startRegistration({ optionsJSON })
      : await startAuthentication({ optionsJSON });
  submit(form, credential, challenge);
}

async function autofill(form: HTMLFormElement) {
  if (!(await browserSupportsWebAuthnAutofill())) return;
  const { optionsJSON, challenge } = await optionsOf(form);
  const credential = await startAuthentication({ optionsJSON, useBrowserAutofill: true });
  submit(form, credential, challenge);
}

for (const form of Array.from(document.querySelectorAll<HTMLFormElement>('form[data-webauthn]'))) {
  if (!browserSupportsWebAuthn()) {
    showError(form);
    continue;
  }
  form.addEventListener('submit', (event: Event) => {
    event.preventDefault();
    ceremony(form).catch((err) => {
      console.warn('webauthn', err);
      showError(form);
    });
  });
  // a conditional request is cancelled by the button's ceremony (an AbortError): nothing to show then
  if (form.dataset.autofill !== undefined) autofill(form).catch((err) => console.debug('webauthn autofill', err));
}
