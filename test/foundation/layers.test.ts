import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/, lowest first. A module may import its own layer and the layers below, never one
 * above: the domain does not know how it is reached, and a transport does not reach into another
 * transport. The composition root is the only place that sees everything.
 */
const LAYERS: { name: string; paths: string[] }[] = [
  { name: 'base', paths: ['config.ts', 'log.ts', 'deps.ts', 'jobs.ts', 'crypto/', 'db/'] },
  { name: 'domain', paths: ['domain/', 'authz/', 'notify/'] },
  { name: 'transport', paths: ['http/', 'oidc/', 'login/', 'api/', 'v1/', 'console/'] },
  { name: 'composition', paths: ['main.ts', 'wiring.ts', 'server.ts', 'cli/', 'http/app.ts'] },
];

/** Pure leaves of the domain layer that settings parsing below it may use (no state, no database). */
const SHARED_LEAVES = ['domain/validate/', 'domain/errors.ts'];

/**
 * The tables: only the database module itself and the domain read and write them. Everything else (the
 * transports, authz/, notify/, the composition root) asks a domain function, so each query has one home.
 */
const SCHEMA = 'db/schema';
const SCHEMA_USERS = ['db/', 'domain/'];

/**
 * Transports that may use each other: the OpenID Provider's endpoints and the hosted login are one
 * browser-facing surface (the login finishes authorization requests, the endpoints render its pages).
 * Every transport may use the HTTP helpers in http/.
 */
const TRANSPORT_PEERS: Record<string, string[]> = {
  'oidc/': ['login/', 'http/'],
  'login/': ['oidc/', 'http/'],
  'api/': ['http/'],
  'v1/': ['http/'],
  // the console's server side reads the login's language rule
  'console/': ['login/', 'http/'],
  'http/': [],
};

/** Code bundled for the browser (src/console/app): it may import itself, npm packages and gen/ only. */
const BROWSER = 'console/app/';

/**
 * Server code the browser bundle may import all the same: the Keycloak converter, which the console runs
 * on an uploaded export so that its conversion is the CLI's own code, not a copy. What these modules
 * load (type-only imports aside) must use no Node.js module; the last test below checks it.
 */
const BROWSER_SHARED = [
  'cli/migrate/keycloak/convert.ts',
  'cli/migrate/keycloak/memory-sink.ts',
  // the console names event types from the registry's declarations (src/console/app/event-labels.ts)
  'domain/events/registry.ts',
  'domain/events/declare.ts',
];

const SRC = join(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The longest matching path prefix wins, so http/app.ts is composition while the rest of http/ is a transport. */
function locate(file: string): { layer: number; area: string } | undefined {
  let best: { layer: number; area: string } | undefined;
  LAYERS.forEach((l, layer) => {
    for (const p of l.paths) {
      if ((file === p || file.startsWith(p)) && (!best || p.length > best.area.length)) best = { layer, area: p };
    }
  });
  return best;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => m[1]);
  const dynamic = [...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1]);
  return [...specs, ...dynamic]
    .map((s) => relative(SRC, normalize(join(dirname(file), s))).replaceAll('\\', '/'))
    .filter((t) => !t.startsWith('..'))
    .map((t) => (/\.tsx?$/.test(t) ? t : `${t}.ts`));
}

/** Why importing `to` from `from` breaks the layering, or undefined when it does not. */
function breach(from: string, to: string): string | undefined {
  // The console's browser code runs in the browser: it reaches the server only through the public API.
  if (from.startsWith(BROWSER) && BROWSER_SHARED.includes(to)) return undefined;
  if (from.startsWith(BROWSER) && !to.startsWith(BROWSER)) return `${from} → ${to}: browser code imports server code`;
  const a = locate(from);
  if (!a) return `${from}: in no layer (add it to LAYERS)`;
  if ((to === `${SCHEMA}.ts` || to.startsWith(`${SCHEMA}/`)) && !SCHEMA_USERS.some((p) => from.startsWith(p))) {
    return `${from} → ${to}: only db/ and the domain query tables (call a domain function)`;
  }
  const b = locate(to);
  if (!b) return undefined;
  if (b.layer > a.layer && !SHARED_LEAVES.some((p) => to.startsWith(p))) {
    return `${from} → ${to}: ${LAYERS[a.layer].name} imports ${LAYERS[b.layer].name}`;
  }
  if (a.layer === 2 && b.layer === 2 && a.area !== b.area && !TRANSPORT_PEERS[a.area]?.includes(b.area)) {
    return `${from} → ${to}: transport ${a.area} imports transport ${b.area}`;
  }
  return undefined;
}

function violations(): string[] {
  return sourceFiles(SRC).flatMap((path) => {
    const from = relative(SRC, path).replaceAll('\\', '/');
    return importsOf(path).flatMap((to) => breach(from, to) ?? []);
  });
}

/** Modules a module loads at run time (`import type` is erased), relative to src/, and its package imports. */
function runtimeImports(file: string): { local: string[]; packages: string[] } {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specs = [...text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]);
  return {
    local: specs
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(SRC, normalize(join(dirname(join(SRC, file)), s))).replaceAll('\\', '/'))
      .map((t) => (/\.tsx?$/.test(t) ? t : `${t}.ts`)),
    packages: specs.filter((s) => !s.startsWith('.')),
  };
}

describe('layers of src/', () => {
  it('no module imports a layer above its own, and transports stay apart', () => {
    expect(violations()).toEqual([]);
  });

  it('the check sees a violation when there is one', () => {
    expect(breach('domain/user/create-user.ts', 'api/user/convert.ts')).toMatch(/domain imports transport/);
    expect(breach('api/oidc/handlers.ts', 'login/flow.ts')).toMatch(/transport api\/ imports transport login\//);
    expect(breach('http/body-limit.ts', 'http/app.ts')).toMatch(/transport imports composition/);
    expect(breach('config.ts', 'domain/validate/duration.ts')).toBeUndefined();
    expect(breach('console/routes.ts', 'db/schema/index.ts')).toMatch(/only db\/ and the domain query tables/);
    expect(breach('authz/authenticate.ts', 'db/schema/users.ts')).toMatch(/only db\/ and the domain query tables/);
    expect(breach('main.ts', 'db/schema.ts')).toMatch(/only db\/ and the domain query tables/);
    expect(breach('domain/user/queries.ts', 'db/schema/index.ts')).toBeUndefined();
    expect(breach('db/migrate.ts', 'db/schema/index.ts')).toBeUndefined();
    expect(breach('console/routes.ts', 'db/client.ts')).toBeUndefined();
    expect(breach('http/app.ts', 'oidc/routes.ts')).toBeUndefined();
    expect(importsOf(join(SRC, 'api/router.ts')).some((t) => t.startsWith('api/'))).toBe(true);
  });

  it('the server code the browser bundle shares loads no Node.js module, directly or further down', () => {
    const seen = new Set<string>();
    const nodeModules: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const { local, packages } = runtimeImports(file);
      for (const p of packages) if (p.startsWith('node:')) nodeModules.push(`${file} → ${p}`);
      for (const l of local) visit(l);
    };
    for (const f of BROWSER_SHARED) visit(f);
    expect(seen.has('cli/migrate/keycloak/credentials.ts')).toBe(true);
    expect(nodeModules).toEqual([]);
  });
});
