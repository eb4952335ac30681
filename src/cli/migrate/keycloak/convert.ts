import { ExportScanner } from './export-scanner';
import type { Input } from './inputs';
import type { ImportSink, TargetOrg } from './sink';
import { Summary } from './summary';
import { mapUser, type MapOptions } from './user';

export interface ConvertOptions extends MapOptions {
  orgId: string;
  /** organization name; default: the realm's display name, else its name */
  orgName?: string;
  /** the realm to convert when the input holds several */
  realmName?: string;
  inputs: Input[];
  sink: ImportSink;
}

/** Reading failed for a reason that is not the JSON itself (permissions, a directory, a broken pipe). */
export class ReadError extends Error {}

/** The export is readable but not what we can convert (several realms without --realm-name, …). */
export class ExportError extends Error {}

interface RealmContext {
  name?: string;
  displayName?: string;
  /** users read before the realm's name, kept until we know whether this realm is wanted */
  pending: unknown[];
}

/** Streams every input through the scanner, maps each user and hands it to the sink. */
export async function convert(options: ConvertOptions): Promise<Summary> {
  const summary = new Summary();
  const realmsSeen = new Set<string>();
  const realmsWithUsers = new Set<string>();
  /** realm name → display name, from whichever file of the realm carries it */
  const displayNames = new Map<string, string>();
  const org = (): TargetOrg => {
    const realm =
      [...realmsWithUsers][0] ?? options.realmName ?? (realmsSeen.size === 1 ? [...realmsSeen][0] : undefined);
    const display = realm === undefined ? undefined : displayNames.get(realm);
    // Keycloak allows HTML in display names (displayNameHtml is separate, but some put markup in both).
    const usable = display && !/[<>]/.test(display) ? display : undefined;
    return { orgId: options.orgId, name: options.orgName || usable || realm || options.orgId };
  };
  const remember = (ctx: RealmContext) => {
    if (ctx.name !== undefined && ctx.displayName) displayNames.set(ctx.name, ctx.displayName);
  };

  const wanted = (ctx: RealmContext) => !options.realmName || ctx.name === options.realmName;
  const convertUser = (ctx: RealmContext, raw: unknown) => {
    const realm = ctx.name ?? '(unnamed)';
    if (!realmsWithUsers.has(realm)) {
      realmsWithUsers.add(realm);
      if (realmsWithUsers.size > 1)
        throw new ExportError(
          `the export holds users of several realms (${[...realmsWithUsers].join(', ')}): choose one with --realm-name`,
        );
      summary.realms.add(realm);
    }
    const r = raw as Record<string, unknown> | null;
    const who = String(r?.username ?? r?.id ?? '(unknown)');
    const result = mapUser(raw, options);
    if (result.algorithm) summary.algorithm(result.algorithm);
    if (result.kind === 'skipped') return summary.skip(result.reason, who);
    summary.converted++;
    if (result.user.user.hashedPassword) summary.withPassword++;
    if (result.user.user.otpCode) summary.withOtp++;
    if (result.user.state) summary.inactive++;
    for (const w of result.warnings) summary.warn(w, who);
    options.sink.add(result.user, result.metadata);
  };

  for (const input of options.inputs) {
    let ctx: RealmContext = { pending: [] };
    const scanner = new ExportScanner(input.label, {
      realmStart: () => {
        ctx = { pending: [] };
      },
      field: (key, value) => {
        if (key === 'displayName' && typeof value === 'string') {
          ctx.displayName = value;
          remember(ctx);
        }
        if (key !== 'realm' || typeof value !== 'string') return;
        ctx.name = value;
        remember(ctx);
        realmsSeen.add(value);
        if (wanted(ctx)) for (const raw of ctx.pending) convertUser(ctx, raw);
        ctx.pending = [];
      },
      user: (raw) => {
        if (ctx.name === undefined && options.realmName) ctx.pending.push(raw);
        else if (wanted(ctx)) convertUser(ctx, raw);
      },
      realmEnd: () => {
        // A realm without a name can only be chosen when no --realm-name asks for a specific one.
        ctx.pending = [];
      },
    });
    try {
      for await (const chunk of input.open()) {
        scanner.write(chunk as Buffer);
        await options.sink.flush(org);
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code) throw new ReadError(`cannot read ${input.label}: ${(err as Error).message}`);
      throw err;
    }
    scanner.end();
  }
  if (options.realmName && !realmsSeen.has(options.realmName))
    throw new ExportError(
      `realm "${options.realmName}" is not in the export (found: ${[...realmsSeen].join(', ') || 'no realm names'})`,
    );
  await options.sink.finish(org());
  return summary;
}
