/** Examples kept per reason: enough to find the users, bounded for exports of millions. */
const EXAMPLES = 5;

interface Tally {
  count: number;
  examples: string[];
}

function add(map: Map<string, Tally>, key: string, example: string) {
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

  skip(reason: string, who: string) {
    add(this.skipped, reason, who);
  }

  warn(warning: string, who: string) {
    // Group by the kind of warning, not by the per-user detail after the colon.
    const kind = warning.split(':')[0];
    add(this.warnings, kind, `${who} (${warning})`);
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
    if (this.converted === 0 && this.skippedCount === 0)
      lines.push(
        'Warning: the export holds no users (export with users: `kc.sh export --users realm_file`, ' +
          'or pass the <realm>-users-N.json files too).',
      );
    return lines.join('\n');
  }
}
