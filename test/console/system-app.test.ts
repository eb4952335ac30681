import { describe, expect, it } from 'vitest';
import { wordsFor } from '../../src/console/app/i18n';
import { CONSOLE_APP_ID, deactivateQuestion, mayDelete } from '../../src/console/app/system-app';
import { CONSOLE_APP_ID as SERVER_CONSOLE_APP_ID } from '../../src/domain/instance/system-resources';

/** The console does not offer to remove itself, and asks plainly before it is turned off. */
describe('console: its own application', () => {
  it('knows the id the server gives the console application', () => {
    expect(CONSOLE_APP_ID).toBe(SERVER_CONSOLE_APP_ID);
  });

  it('offers no Delete for the console application (the server refuses it), and does for others', () => {
    expect(mayDelete(CONSOLE_APP_ID)).toBe(false);
    expect(mayDelete('some-app')).toBe(true);
  });

  it('names the consequence before the console application is deactivated, in every language', () => {
    for (const lang of ['en', 'de']) {
      const t = wordsFor(lang);
      const question = deactivateQuestion(t, { applicationId: CONSOLE_APP_ID, name: 'Console' });
      expect(question).toBe(t.confirmDeactivateConsole);
      expect(question).toMatch(lang === 'en' ? /Nobody, you included, can sign in/ : /Niemand, auch Sie nicht/);
      expect(question).toContain('ReactivateApplication');
      const other = deactivateQuestion(t, { applicationId: 'some-app', name: 'Shop' });
      expect(other).toBe(t.confirmDeactivateApp('Shop'));
    }
  });
});
