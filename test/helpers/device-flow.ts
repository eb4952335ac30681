import { expect } from 'vitest';
import { addOidcApp, addProject } from './apps';
import type { Browser } from './browser';
import { postFormJson } from './forms';
import type { TestServer } from './server';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A public native client (no secret) allowed the device grant and refresh tokens. */
export async function addDeviceApp(
  server: TestServer,
  grantTypes = ['AUTHORIZATION_CODE', 'DEVICE_CODE', 'REFRESH_TOKEN'],
) {
  return addOidcApp(server, await addProject(server), {
    applicationType: 'NATIVE',
    authMethodType: 'NONE',
    responseTypes: ['CODE'],
    grantTypes,
  });
}

/** POST /oauth/v2/device_authorization for a public client; answers status and JSON body. */
export function startDevice(server: TestServer, clientId: string, scope = 'openid profile offline_access') {
  return postFormJson(server, '/oauth/v2/device_authorization', { client_id: clientId, scope });
}

/** One poll of the token endpoint with the device code, as a public client. */
export function poll(server: TestServer, clientId: string, deviceCode: string) {
  return postFormJson(server, '/oauth/v2/token', {
    grant_type: DEVICE_GRANT,
    client_id: clientId,
    device_code: deviceCode,
  });
}

/**
 * The user's side in the tiny browser: open the verification URI, type the code, sign in through the
 * hosted login when asked, and arrive at the consent page.
 */
export async function signInForCode(
  browser: Browser,
  typedCode: string,
  user?: { username: string; password: string },
) {
  let page = await browser.go('/ui/login/device');
  page = await browser.submit(page, '/ui/login/device', { user_code: typedCode });
  if (user && page.url.includes('/ui/login/login'))
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
  if (user && page.url.includes('/ui/login/password'))
    page = await browser.submit(page, '/ui/login/password', { password: user.password });
  return page;
}

/** signInForCode, then Allow or Deny on the consent page; answers the final page. */
export async function answerInBrowser(
  browser: Browser,
  typedCode: string,
  user: { username: string; password: string } | undefined,
  decision: 'allow' | 'deny',
) {
  const consent = await signInForCode(browser, typedCode, user);
  expect(consent.url, consent.html.slice(0, 400)).toContain('/ui/login/device/consent');
  return browser.submit(consent, '/ui/login/device/consent', { decision });
}
