import type { Context } from 'hono';
import { authenticateBearer } from '../authz/authenticate';
import type { Principal } from '../authz/principal';
import { type Deps, sourceOf } from '../deps';
import type { Ctx } from '../domain/context';
import { invalidArgument } from '../domain/errors';

/**
 * Reads a protobuf-JSON request body. Protobuf JSON accepts both the lowerCamelCase and the original
 * snake_case field names, so keys are normalised to lowerCamelCase once here. An empty body is `{}`.
 */
export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidArgument(
      'Errors.Request.MalformedJson',
      `the request body is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument('Errors.Request.InvalidShape', 'the request body must be a JSON object');
  }
  return camelKeys(value) as Record<string, unknown>;
}

export function camelKeys(value: unknown): unknown {
  // Most bodies are camelCase already: they are returned as they are, without a copy (the import
  // converts a million users through here).
  if (!hasSnakeKey(value)) return value;
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k.includes('_') ? k.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase()) : k] = camelKeys(v);
  }
  return out;
}

function hasSnakeKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasSnakeKey);
  for (const k in value) if (k.includes('_') || hasSnakeKey((value as Record<string, unknown>)[k])) return true;
  return false;
}

/** The caller from `Authorization: Bearer …` (PAT or access token); missing or invalid → 401. */
export function authenticate(deps: Deps, c: Context): Promise<Principal> {
  return authenticateBearer(sourceOf(deps), c.req.header('authorization'), {
    proof: c.req.header('dpop'),
    method: c.req.method,
    url: `${deps.config.externalUrl}${c.req.path}`,
  });
}

/** The domain context of a v1 route; `service` names the route, e.g. `admin/v1/import`. */
export function v1Ctx(deps: Deps, principal: Principal, service: string): Ctx {
  const origin = new URL(deps.config.externalUrl).origin;
  return { db: deps.database.db, runtime: deps.runtime, instanceId: deps.instanceId, principal, service, origin };
}
