import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAt, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The web console in Chromium: an OIDC public client of the instance that calls only the public API. */
describe('console', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  /** A fresh browser with the CSP violations and script errors it reports collected. */
  async function freshPage() {
    const ctx = await browser.newContext({ locale: 'en-US' });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    return { page, problems, ctx };
  }

  it('/ leads to the console; its page allows no inline script and no other origin', async () => {
    const res = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/ui/console/');
    const page = await fetch(`${server.url}/ui/console/`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const body = await page.text();
    expect(body).not.toMatch(/<script>/);
  });

  it('admin signs in through the hosted login and sees the instance; tokens stay out of storage', async () => {
    const { page, problems, ctx } = await freshPage();
    await page.goto(`${server.url}/ui/console/`);
    await page.waitForURL(/\/ui\/login\//);
    await signInAt(page, 'admin', server.adminPassword);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${server.url}/ui/console/`);
    await page.locator('main').getByText('Portcullis', { exact: true }).waitFor();
    await expect(page.locator('.who').getByText('Portcullis Administrator').isVisible()).resolves.toBe(true);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toMatch(/eyJ|access|refresh/i);
    expect(problems, problems.join('\n')).toEqual([]);
    await ctx.close();
  });

  it('a user without administrator roles is told so and pointed to their account, and gets no data', async () => {
    const user = await addUser(server);
    const { page, ctx } = await freshPage();
    await page.goto(`${server.url}/ui/console/`);
    await page.waitForURL(/\/ui\/login\//);
    await signInAt(page, user.username, user.password);
    await page.waitForURL(`${server.url}/ui/console/`);
    await page.getByRole('alert').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('holds no administrator role');
    await expect(page.getByRole('link', { name: 'Open your account page' }).getAttribute('href')).resolves.toBe(
      '/ui/account/',
    );
    await expect(page.locator('.cards').count()).resolves.toBe(0);
    await expect(page.getByText('Portcullis Administrator').count()).resolves.toBe(0);
    await ctx.close();
  });

  it('signs out through the end-session endpoint; the next visit asks for the login again', async () => {
    const { page, ctx } = await freshPage();
    await page.goto(`${server.url}/ui/console/`);
    await page.waitForURL(/\/ui\/login\//);
    await signInAt(page, 'admin', server.adminPassword);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/ui\/login\//);
    await ctx.close();
  });

  it('speaks German to a German browser', async () => {
    const ctx = await browser.newContext({ locale: 'de-DE' });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/console/`);
    await page.waitForURL(/\/ui\/login\//);
    await signInAt(page, 'admin', server.adminPassword);
    await page.getByRole('heading', { name: 'Übersicht' }).waitFor();
    await expect(page.getByRole('button', { name: 'Abmelden' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('a[href="#main"]').textContent()).resolves.toBe('Zum Inhalt springen');
    await ctx.close();
  });
});
