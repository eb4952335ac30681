/** Examples kept per reason: enough to find the users, bounded for exports of millions. */
const EXAMPLES = 5;

export interface Tally {
  count: number;
  examples: string[];
}

export function add(map: Map<string, Tally>, key: string, example: string) {
  let t = map.get(key);
  if (!t) {
    t = { count: 0, examples: [] };
    map.set(key, t);
  }
  t.count++;
  if (t.examples.length < EXAMPLES) t.examples.push(example);
}

/** What the conversion did, printed on stderr at the end. */
export class Summary {
  converted = 0;
  withPassword = 0;
  withOtp = 0;
  inactive = 0;
  readonly skipped = new Map<string, Tally>();
  readonly warnings = new Map<string, Tally>();
  readonly algorithms = new Map<string, number>();
  readonly realms = new Set<string>();
  /** identity providers converted, and why the others were not */
  readonly idps: { alias: string; idpId: string; type: string }[] = [];
  readonly idpsSkipped: { alias: string; reason: string }[] = [];
  readonly idpWarnings: string[] = [];
  /** links written into the body */
  links = 0;
  /** users converted without a password because they sign in through a provider */
  federatedOnly = 0;
  /** links left out because their provider is not converted, by alias */
  readonly droppedLinks = new Map<string, Tally>();
  /** users converted without a password for links that were all left out in the end */
  readonly stranded: Tally = { count: 0, examples: [] };

  skip(reason: string, who: string) {
    add(this.skipped, reason, who);
  }

  warn(warning: string, who: string) {
    // Group by the kind of warning, not by the per-user detail after the colon.
    const kind = warning.split(':')[0];
    add(this.warnings, kind, `${who} (${warning})`);
  }

  dropLink(alias: string, who: string) {
    add(this.droppedLinks, alias, who);
  }

  strand(who: string, count = 1) {
    this.stranded.count += count;
    if (this.stranded.examples.length < EXAMPLES) this.stranded.examples.push(who);
  }

  algorithm(name: string) {
    this.algorithms.set(name, (this.algorithms.get(name) ?? 0) + 1);
  }

  get skippedCount(): number {
    let n = 0;
    for (const t of this.skipped.values()) n += t.count;
    return n;
  }

  render(): string {
    const lines = [`Converted ${this.converted} user(s) from realm ${[...this.realms].join(', ') || '(unnamed)'}.`];
    lines.push(`  with password hash: ${this.withPassword}, with TOTP: ${this.withOtp}, inactive: ${this.inactive}`);
    if (this.algorithms.size > 0)
      lines.push(`  hash algorithms seen: ${[...this.algorithms].map(([name, n]) => `${name} (${n})`).join(', ')}`);
    lines.push(`Skipped ${this.skippedCount} user(s)${this.skipped.size ? ':' : '.'}`);
    for (const [reason, t] of this.skipped)
      lines.push(`  ${t.count} × ${reason}: ${t.examples.join(', ')}${t.count > t.examples.length ? ', …' : ''}`);
    for (const [kind, t] of this.warnings) {
      lines.push(`Warning: ${t.count} user(s): ${kind}`);
      for (const e of t.examples) lines.push(`  ${e}`);
      if (t.count > t.examples.length) lines.push(`  … and ${t.count - t.examples.length} more`);
    }
    lines.push(...this.renderIdps());
    if (this.converted === 0 && this.skippedCount === 0)
      lines.push(
        'Warning: the export holds no users (export with users: `kc.sh export --users realm_file`, ' +
          'or pass the <realm>-users-N.json files too).',
      );
    return lines.join('\n');
  }

  private renderIdps(): string[] {
    if (this.idps.length + this.idpsSkipped.length + this.links + this.droppedLinks.size === 0) return [];
    const lines = [`Identity providers: ${this.idps.length} converted, ${this.idpsSkipped.length} not converted.`];
    for (const p of this.idps) lines.push(`  ${p.alias} → ${p.type} (${p.idpId})`);
    for (const p of this.idpsSkipped) lines.push(`  not converted: ${p.alias}: ${p.reason}`);
    for (const w of this.idpWarnings) lines.push(`Warning: identity provider ${w}`);
    lines.push(`User links: ${this.links}; users signing in only through a provider: ${this.federatedOnly}`);
    for (const [alias, t] of this.droppedLinks)
      lines.push(
        `Warning: ${t.count} link(s) to ${alias} left out (provider not converted): ` +
          `${t.examples.join(', ')}${t.count > t.examples.length ? ', …' : ''}`,
      );
    const s = this.stranded;
    if (s.count > 0)
      lines.push(
        `Warning: ${s.count} user(s) imported without password whose providers were not converted ` +
          `(they need a password reset): ${s.examples.join(', ')}${s.count > s.examples.length ? ', …' : ''}`,
      );
    return lines;
  }
}
