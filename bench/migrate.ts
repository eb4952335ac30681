import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, ScenarioResult } from './lib/types';

/**
 * `portcullis migrate keycloak` on a generated export of BENCH_MIGRATE_USERS users (default
 * 1,000,000, Keycloak 24 layout, pbkdf2-sha256 credentials, some OTP, attributes, users without
 * email or disabled). The conversion runs in a child process, as a user runs it; reports wall-clock
 * seconds and the child's peak RSS. Targets on the 2-core machine: ≤ 60 s and ≤ 300 MB RSS.
 */
const USERS = Number(process.env.BENCH_MIGRATE_USERS ?? 1_000_000);
const ROOT = path.resolve(import.meta.dirname, '..');
const TMP = path.join(ROOT, 'bench', 'tmp');

function userJson(i: number): string {
  const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  const salt = Buffer.from(`salt-${i}`.padEnd(16, '.')).toString('base64');
  const hash = Buffer.from(`hash-${i}`.padEnd(32, '#')).toString('base64');
  const credentials = [
    {
      id: `c-${i}`,
      type: 'password',
      userLabel: 'My password',
      createdDate: 1717409275946,
      secretData: JSON.stringify({ value: hash, salt, additionalParameters: {} }),
      credentialData: JSON.stringify({ hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} }),
    },
  ];
  if (i % 20 === 0)
    credentials.push({
      id: `o-${i}`,
      type: 'otp',
      userLabel: 'phone',
      createdDate: 1717409275946,
      secretData: JSON.stringify({ value: `otp-secret-${i}` }),
      credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
    });
  const user = {
    id,
    username: `user${i}`,
    firstName: `First${i}`,
    lastName: `Last${i}`,
    ...(i % 10 === 0 ? {} : { email: `user${i}@example.com` }),
    emailVerified: i % 3 === 0,
    ...(i % 5 === 0 ? { attributes: { department: [`dept-${i % 17}`], locale: ['en'] } } : {}),
    createdTimestamp: 1717409183979,
    enabled: i % 7 !== 0,
    totp: i % 20 === 0,
    credentials,
    disableableCredentialTypes: [],
    requiredActions: i % 11 === 0 ? ['UPDATE_PASSWORD'] : [],
    realmRoles: ['default-roles-bench'],
    notBefore: 0,
    groups: [],
  };
  return JSON.stringify(user, null, 2).replaceAll('\n', '\n  ');
}

/** Writes the export once and keeps it in bench/tmp (ignored by git) for later runs. */
async function generate(file: string): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(TMP, { recursive: true });
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  out.write('{\n  "realm" : "bench",\n  "displayName" : "Bench",\n  "users" : [ ');
  let buffer = '';
  for (let i = 0; i < USERS; i++) {
    buffer += (i === 0 ? '' : ', ') + userJson(i);
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.write(`${buffer} ]\n}\n`);
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
}

/** Records the child's peak RSS (KiB) at exit, without touching the command's own code. */
const RSS_PROBE = `data:text/javascript,${encodeURIComponent(
  "import{writeFileSync}from'node:fs';" +
    "process.on('exit',()=>writeFileSync(process.env.BENCH_RSS_FILE,String(process.resourceUsage().maxRSS)))",
)}`;

export default async function run(opts?: BenchOptions): Promise<ScenarioResult> {
  const input = path.join(TMP, `keycloak-${USERS}-users.json`);
  const output = path.join(TMP, 'importBody.json');
  const rssFile = path.join(TMP, 'migrate.rss');
  const t0 = Date.now();
  opts?.progress(`migrate: generating a ${USERS.toLocaleString('en-US')}-user export (kept in bench/tmp)`);
  await generate(input);
  process.stderr.write(
    `export: ${input} (${(statSync(input).size / 1e6).toFixed(0)} MB, ` +
      `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
  );
  rmSync(output, { force: true });
  const start = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [
      '--import',
      RSS_PROBE,
      path.join(ROOT, 'bin', 'portcullis.mjs'),
      'migrate',
      'keycloak',
      '--org=bench-org',
      `--realm=${input}`,
      `--output=${output}`,
    ],
    { cwd: ROOT, env: { ...process.env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const [code] = await once(child, 'close');
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (code !== 0) throw new Error(`migrate exited with ${code}:\n${stderr}`);
  const peakMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  const converted = /Converted (\d+) user/.exec(stderr)?.[1];
  const result = {
    users: USERS,
    converted: Number(converted),
    seconds: Number(seconds.toFixed(1)),
    usersPerSecond: Math.round(USERS / seconds),
    peakRssMb: Math.round(peakMb),
    outputMb: Math.round(statSync(output).size / 1e6),
    targets: { seconds: 60, peakRssMb: 300 },
  };
  if (!opts) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  rmSync(output, { force: true });
  return {
    scenario: 'migrate',
    metrics: [
      {
        name: `convert ${USERS.toLocaleString('en-US')} Keycloak users`,
        value: result.seconds,
        unit: 's',
        target: { op: '<=', value: 60 },
      },
      { name: 'conversion rate', value: result.usersPerSecond, unit: 'users/s' },
      { name: 'peak RSS of the converter', value: result.peakRssMb, unit: 'MB', target: { op: '<=', value: 300 } },
    ],
    notes: [
      `${result.converted.toLocaleString('en-US')} users converted into a ${result.outputMb} MB import body ` +
        'by `portcullis migrate keycloak` in a child process',
    ],
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await run();
