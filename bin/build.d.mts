/** Path of the bundle the `portcullis` command runs (dist/cli/main.mjs). */
export const BUNDLE: string;
/** True when the bundle exists and no file in src/ or gen/ is newer. */
export function isFresh(): boolean;
/** Bundles the sources now; resolves to the bundle's path. */
export function build(): Promise<string>;
/** The bundle of the current sources (built if needed), or undefined where it cannot be written. */
export function ensureBuild(): Promise<string | undefined>;
