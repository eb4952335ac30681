import type { Words } from './i18n';

/**
 * The application the console itself signs in with. Its id is fixed on the server
 * (src/domain/instance/system-resources.ts); the browser bundle cannot import server code, so it is
 * repeated here and a test keeps the two equal.
 */
export const CONSOLE_APP_ID = 'portcullis-console';

/** The server refuses to delete the console's own application, so the console does not offer it. */
export const mayDelete = (applicationId: string) => applicationId !== CONSOLE_APP_ID;

/** Deactivating the console's own application turns the console off for everyone: the question says so. */
export function deactivateQuestion(t: Words, app: { applicationId: string; name: string }): string {
  return app.applicationId === CONSOLE_APP_ID ? t.confirmDeactivateConsole : t.confirmDeactivateApp(app.name);
}
