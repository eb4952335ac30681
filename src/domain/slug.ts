/**
 * A name as one DNS label: accents dropped, lowercased, every other run of characters a `-`, at most
 * 63 characters; `fallback` when nothing is left. Used for client ids and generated organization domains.
 */
export function slugOf(name: string, fallback: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 63) || fallback
  );
}
