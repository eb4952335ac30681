import { describe, expect, it } from 'vitest';
import { browserName } from '../../src/console/app/user-agent';

const on = (browser: string, system: string) => `${browser} on ${system}`;

/** The browser of a session in a few words, from its User-Agent header. */
describe('console: browser of a session', () => {
  it('names the common browsers and their systems', () => {
    const cases: [string, string][] = [
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ' +
          'Chrome/131.0.0.0 Safari/537.36',
        'Chrome 131 on Windows',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 ' +
          'Safari/537.36 Edg/131.0.2903.86',
        'Edge 131 on Windows',
      ],
      ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux'],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 ' +
          'Safari/605.1.15',
        'Safari 18 on macOS',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
          'Version/18.1 Mobile/15E148 Safari/604.1',
        'Safari 18 on iOS',
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 ' +
          'Mobile Safari/537.36',
        'Chrome 131 on Android',
      ],
    ];
    for (const [ua, name] of cases) expect(browserName(ua, on)).toBe(name);
  });

  it('shows what it does not know briefly, and nothing for no header', () => {
    expect(browserName('curl/8.5.0', on)).toBe('curl/8.5.0');
    expect(browserName('', on)).toBe('');
  });
});
