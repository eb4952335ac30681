import { guardedFetch, OutboundRefused } from '../../outbound/guarded-fetch';
import { MetadataProblem } from './problem';

/**
 * A metadata document is a few hundred bytes; the draft suggests limiting responses to about 5 KB.
 * The limit is enforced while the body streams in, so a server sending megabytes costs us 5 KiB.
 */
const MAX_DOCUMENT_BYTES = 5 * 1024;
/** The whole exchange (connect, headers, body) must finish within this, or the client is refused. */
export const FETCH_TIMEOUT_MS = 3000;

const PURPOSE = 'the client metadata document';

export interface FetchedDocument {
  json: unknown;
  cacheControl: string | undefined;
}

/**
 * GETs the document at a checked client_id URL through the guarded fetcher (no redirects, every
 * resolved address checked at connect time, MAX_DOCUMENT_BYTES within FETCH_TIMEOUT_MS); the answer
 * must be a 200 with a JSON body.
 */
export async function fetchMetadataDocument(url: URL, development: boolean): Promise<FetchedDocument> {
  let res: Response;
  try {
    res = await guardedFetch(url, {
      purpose: PURPOSE,
      development,
      headers: { accept: 'application/json', 'user-agent': 'Portcullis client metadata fetcher' },
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof OutboundRefused || err instanceof DOMException) throw new MetadataProblem(err.message);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new MetadataProblem(`${PURPOSE} could not be fetched (${cause?.code ?? cause?.message ?? 'unreachable'})`);
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.status !== 200) throw new MetadataProblem(`${PURPOSE} answered HTTP ${res.status}`);
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type))
    throw new MetadataProblem(`${PURPOSE} is not JSON (content type "${type || 'none'}")`);
  try {
    return { json: JSON.parse(await res.text()), cacheControl: res.headers.get('cache-control') ?? undefined };
  } catch {
    throw new MetadataProblem(`${PURPOSE} is not valid JSON`);
  }
}
