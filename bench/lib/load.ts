import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  /** concurrent keep-alive connections */
  connections: number;
  /** seconds to measure (after warm-up) */
  duration: number;
  warmup?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** a fixed body, or one made for every request (e.g. rotating tokens) */
  body?: string | (() => string);
  /** headers made for every request, added to `headers` (e.g. a DPoP proof, single use) */
  requestHeaders?: () => Record<string, string>;
  /** responses with this status count as success (default 200) */
  expectStatus?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  requests: number;
}

/**
 * Drives one endpoint with autocannon for a fixed time at a fixed concurrency. After a warm-up the
 * time is measured in three equal windows: throughput is the median window's (a passing burst of the
 * machine's background load spoils one window, not the figure), latency percentiles are exact over
 * every response of all three. Loopback only; bounded by duration.
 */
export async function measure(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmup ?? 2) await runOnce(spec, spec.warmup ?? 2);
  const windows: Window[] = [];
  for (let i = 0; i < WINDOWS; i++) windows.push(await runOnce(spec, spec.duration / WINDOWS));
  const times = windows.flatMap((w) => w.times).sort((a, b) => a - b);
  const pct = (p: number) =>
    times.length ? round(times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]) : 0;
  const rates = windows.map((w) => w.rps).sort((a, b) => a - b);
  return {
    rps: rates[Math.floor(WINDOWS / 2)],
    p50: pct(50),
    p95: pct(95),
    p99: pct(99),
    errors: windows.reduce((n, w) => n + w.errors, 0),
    requests: times.length,
  };
}

const WINDOWS = 3;

interface Window {
  rps: number;
  times: number[];
  errors: number;
}

function runOnce(spec: LoadSpec, seconds: number): Promise<Window> {
  const times: number[] = [];
  let errors = 0;
  const expected = spec.expectStatus ?? 200;
  const makeBody = typeof spec.body === 'function' ? spec.body : undefined;
  const makeHeaders = spec.requestHeaders;
  const perRequest =
    makeBody || makeHeaders
      ? (req: any) => ({
          ...req,
          ...(makeBody ? { body: makeBody() } : {}),
          ...(makeHeaders ? { headers: { ...req.headers, ...makeHeaders() } } : {}),
        })
      : undefined;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: seconds,
        method: spec.method ?? 'GET',
        headers: spec.headers,
        body: typeof spec.body === 'string' ? spec.body : undefined,
        requests: perRequest ? [{ setupRequest: perRequest }] : undefined,
      } as any,
      (err: Error | null, result: any) => {
        if (err) return reject(err);
        resolve({
          rps: Math.round(times.length / seconds),
          times,
          errors: errors + (result.errors ?? 0) + (result.timeouts ?? 0),
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
      if (status === expected) times.push(responseTime);
      else errors++;
    });
  });
}

const round = (n: number) => Math.round(n * 100) / 100;
