export interface ConsoleBundle {
  js: string;
  css: string;
  /** content hash: the asset URLs carry it, so browsers may cache them for good */
  version: string;
}
/** Bundles the console's entry (src/console/app/main.tsx) in memory. */
export function bundleConsole(entry: string): Promise<ConsoleBundle>;
/** The content hash of a script and a stylesheet. */
export function consoleVersion(js: string, css: string): string;

/** Bundles the login's WebAuthn script (src/login/client/webauthn.ts). */
export function bundleWebauthn(entry: string): Promise<string>;
