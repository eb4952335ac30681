const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

// One term of a Go duration: a decimal number (`1`, `1.5`, `.5`, `1.`) and a unit. Both spellings of
// the micro sign are units, as in Go: U+00B5 (µ, what keyboards type) and U+03BC (μ).
// Longest units first, so that `ms` is not read as `m` followed by `s`.
const TERM = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * The one duration grammar of the server settings, the import body's `timeout` and the CLI's
 * `--timeout`: a Go duration (`5m0s`, `1h30m`, `720h`, `1500ms`, `250us`, `10ns`), in milliseconds.
 * A bare whole number counts as seconds, as the settings have always read it (`90` is 90s).
 * No sign: none of these durations can be negative. Undefined when `raw` is not a duration.
 */
export function parseDuration(raw: string): number | undefined {
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  let total = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < raw.length) {
    const m = TERM.exec(raw);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
  }
  return raw.length ? total : undefined;
}
