let counter = 0;

/**
 * A name no other test of this process has used: tests share one server per file, and names such as
 * usernames and client names must not collide between them.
 */
export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;
}
