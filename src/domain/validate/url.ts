/** The URL, or undefined when `value` is not an absolute URL. */
export function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** An http or https URL with a host (a link sent to a user, a metadata address). */
export function httpUrl(value: string): URL | undefined {
  const url = parseUrl(value);
  return url && (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname ? url : undefined;
}
