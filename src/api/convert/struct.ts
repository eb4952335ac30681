import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

/**
 * A google.protobuf.Struct field's value from any JSON-shaped object, as JSON.stringify would send it:
 * properties that are undefined (or functions, symbols, bigints) are left out, array holes and
 * non-finite numbers become null, `toJSON` is honoured. A Struct holds only JSON, and the binary and
 * gRPC encodings refuse an undefined Value ("google.protobuf.Value must have a value") where the JSON
 * encoding silently drops it: WebAuthn options (`extensions: undefined`) would answer 500 to every
 * client that is not Connect JSON. Every Struct the API answers with goes through here.
 */
export function structOf(value: object | null | undefined): JsonObject {
  const json = jsonOf(value);
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? json : {};
}

function jsonOf(value: unknown): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return Array.from(value, (item) => jsonOf(item) ?? null);
      const withToJson = value as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return jsonOf(withToJson.toJSON());
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value)) {
        const json = jsonOf(item);
        if (json !== undefined) out[key] = json;
      }
      return out;
    }
    default:
      return undefined;
  }
}
