import { ExportScanner } from './export-scanner';
import { type IdpResult, type ImportIdpItem, mapIdentityProvider, withSecret } from './identity-providers';
import type { Input } from './inputs';
import type { ImportSink, TargetIdps, TargetOrg } from './sink';
import { Summary, type Tally, add } from './summary';
import { mapUser, type MapOptions } from './user';

export interface ConvertOptions extends MapOptions {
  orgId: string;
  /** organization name; default: the realm's display name, else its name */
  orgName?: string;
  /** the realm to convert when the input holds several */
  realmName?: string;
  inputs: Input[];
  sink: ImportSink;
  /** secrets of identity providers whose secret the export does not hold (masked), by alias */
  idpSecrets?: Record<string, string>;
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
  const chosenRealm = () =>
    [...realmsWithUsers][0] ?? options.realmName ?? (realmsSeen.size === 1 ? [...realmsSeen][0] : undefined);
  const org = (): TargetOrg => {
    const realm = chosenRealm();
    const display = realm === undefined ? undefined : displayNames.get(realm);
    // Keycloak allows HTML in display names (displayNameHtml is separate, but some put markup in both).
    const usable = display && !/[<>]/.test(display) ? display : undefined;
    return { orgId: options.orgId, name: options.orgName || usable || realm || options.orgId };
  };
  const remember = (ctx: RealmContext) => {
    if (ctx.name !== undefined && ctx.displayName) displayNames.set(ctx.name, ctx.displayName);
  };

  /** each realm's identity providers by alias, once its `identityProviders` has been read */
  const providers = new Map<string, Map<string, IdpResult>>();
  /** links handed to the sink, by alias: whether they stay is known once the providers are */
  const links = new Map<string, Tally>();
  /** users without password kept for their links, by their links' aliases */
  const linkedOnly = new Map<string, Tally>();
  const readProviders = (ctx: RealmContext, value: unknown) => {
    const byAlias = new Map<string, IdpResult>();
    for (const raw of Array.isArray(value) ? value : []) {
      const r = mapIdentityProvider(raw, options.orgId, options.idPrefix);
      if (!byAlias.has(r.alias)) byAlias.set(r.alias, r);
    }
    providers.set(ctx.name ?? '(unnamed)', byAlias);
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
    const known = providers.get(realm);
    // Before the realm's providers are read (a single-file export lists them after the users) every
    // link is kept for now; finish() leaves out those whose provider is not converted.
    const linkable = (alias: string) => !known || known.get(alias)?.kind === 'converted';
    const result = mapUser(raw, { ...options, linkable });
    if (result.algorithm) summary.algorithm(result.algorithm);
    if (result.kind === 'skipped') return summary.skip(result.reason, who);
    summary.converted++;
    for (const l of result.links) add(links, l.alias, who);
    for (const alias of result.droppedLinks) summary.dropLink(alias, who);
    if (result.federatedOnly) {
      summary.federatedOnly++;
      add(linkedOnly, [...new Set(result.links.map((l) => l.alias))].sort().join('\u0000'), who);
    }
    if (result.user.user.hashedPassword) summary.withPassword++;
    if (result.user.user.otpCode) summary.withOtp++;
    if (result.user.state) summary.inactive++;
    for (const w of result.warnings) summary.warn(w, who);
    options.sink.add(
      result.user,
      result.metadata,
      result.links.map(({ alias, ...link }) => link),
    );
  };

  for (const input of options.inputs) {
    let ctx: RealmContext = { pending: [] };
    const scanner = new ExportScanner(input.label, {
      realmStart: () => {
        ctx = { pending: [] };
      },
      field: (key, value) => {
        if (key === 'identityProviders' && wanted(ctx)) readProviders(ctx, value);
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
        scanner.write(chunk as Uint8Array);
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
  await options.sink.finish(
    org(),
    targetIdps(summary, providers.get(chosenRealm() ?? '(unnamed)'), links, linkedOnly, options),
  );
  return summary;
}

/**
 * The realm's converted providers (with the secrets given on the side) and the links that stay; the
 * summary learns what was left out and which users were kept for links that did not stay.
 */
function targetIdps(
  summary: Summary,
  byAlias: Map<string, IdpResult> | undefined,
  links: Map<string, Tally>,
  linkedOnly: Map<string, Tally>,
  options: ConvertOptions,
): TargetIdps {
  const idps: ImportIdpItem[] = [];
  const converted = new Set<string>();
  for (const r of byAlias?.values() ?? []) {
    if (r.kind === 'skipped') {
      summary.idpsSkipped.push({ alias: r.alias, reason: r.reason });
      continue;
    }
    const secret = options.idpSecrets?.[r.alias];
    const item = secret ? withSecret(r.item, secret) : r.item;
    idps.push(item);
    converted.add(r.alias);
    const type = Object.keys(item).find((k) => !['idpId', 'name', 'options'].includes(k)) ?? '';
    summary.idps.push({ alias: r.alias, idpId: item.idpId, type });
    // A secret given on the side replaces the one the export masked.
    for (const w of r.warnings)
      if (!(secret && / (masked|is a Keycloak vault)/.test(w))) summary.idpWarnings.push(`${r.alias}: ${w}`);
  }
  for (const [alias, t] of links) {
    if (converted.has(alias)) summary.links += t.count;
    else for (let i = 0; i < t.count; i++) summary.dropLink(alias, t.examples[i] ?? t.examples[0]);
  }
  for (const [key, t] of linkedOnly) {
    if (key.split('\u0000').some((alias) => converted.has(alias))) continue;
    summary.federatedOnly -= t.count;
    for (let i = 0; i < t.count; i++) summary.strand(t.examples[i] ?? t.examples[0]);
  }
  const kept = new Set(idps.map((i) => i.idpId));
  return { idps, keepLink: (idpId) => kept.has(idpId) };
}
