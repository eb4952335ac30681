import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startServer } from './lib/server';
import type { BenchOptions, Metric, ScenarioResult } from './lib/types';

const LOADS = 7;

/**
 * The web console as a browser meets it: the size of what its page loads (gzip, as a proxy or CDN would
 * send it), and the time from asking for /ui/console/ to the overview's heading on screen for someone whose
 * login session is still open — the redirect through the authorization endpoint, the code exchange and
 * the first API calls included. Chromium on loopback, its cache warm as on a returning visit.
 */
export default async function consoleScenario(opts: BenchOptions): Promise<ScenarioResult> {
  const server = await startServer({ storage: 'postgres', baseUrl: opts.databaseUrl, externalUrlIsOwn: true });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const shell = await (await fetch(`${server.url}/ui/console/`)).text();
    let gzip = 0;
    for (const [, asset] of shell.matchAll(/(?:src|href)="(\/ui\/console\/assets\/[^"]+)"/g)) {
      const body = Buffer.from(await (await fetch(`${server.url}${asset}`)).arrayBuffer());
      gzip += gzipSync(body).length;
    }

    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(`${server.url}/ui/console/`);
    await page.getByLabel('Login name').fill('admin');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password', { exact: true }).fill('Bench-Passw0rd!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('main h1').waitFor();

    const times: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      opts.progress(`console: signed-in load ${i + 1}/${LOADS}`);
      const started = performance.now();
      await page.goto(`${server.url}/ui/console/`);
      await page.locator('main h1').waitFor();
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const metrics: Metric[] = [
      {
        name: 'console initial bundle (JS + CSS, gzip)',
        value: Math.round(gzip / 1024),
        unit: 'KB',
        target: { op: '<=', value: 250 },
      },
      {
        name: 'console first render, signed-in visit (median)',
        value: Math.round(times[LOADS >> 1]),
        unit: 'ms',
        target: { op: '<=', value: 1000 },
      },
    ];
    return {
      scenario: 'console',
      metrics,
      notes: [`${LOADS} visits of /ui/console/ in one Chromium with an open login session, PostgreSQL`],
    };
  } finally {
    await browser.close();
    await server.stop();
  }
}
