import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

/**
 * The v2 side of the boundary check (http/input-guard.ts for the HTTP routes): a NUL character in
 * any string of a request message is INVALID_ARGUMENT naming the field, whatever the protocol
 * (Connect JSON or binary, gRPC, gRPC-web) — PostgreSQL cannot store NUL in text, and no field of
 * ours means it. Depth needs no check here: the generated messages bound their own nesting.
 */
export function inputGuardInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const field = nulField(req.message, '', 0);
      if (field !== undefined)
        throw new ConnectError(`${field || 'the request'} contains a NUL character`, Code.InvalidArgument);
    }
    return next(req);
  };
}

function nulField(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (depth > 64 || value === null || typeof value !== 'object' || value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulField(value[i], `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    if (key === '$typeName') continue;
    // oneof members are {case, value}: name the case, not "value"
    const name =
      key === 'value' && 'case' in value ? String((value as { case: unknown }).case) : key === 'case' ? '' : key;
    if (!name) continue;
    const found = nulField(v, path && name ? `${path}.${snake(name)}` : snake(name), depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
