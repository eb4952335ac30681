import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import type { ImportUserLinkItem } from './identity-providers';
import type { ImportSink, TargetIdps, TargetOrg } from './sink';
import type { ImportHumanUser, ImportUserMetadata } from './user';

/** Output is written in pieces of about this size, so a million users are never held at once. */
const WRITE_CHUNK = 64 * 1024;

/** A JSON array written element by element, compact or indented as JSON.stringify(…, null, 2) would. */
class ArrayWriter {
  private buffer = '';
  count = 0;
  /** A write error is kept and reported by flush(); after abort() it is expected and ignored. */
  error: Error | undefined;

  constructor(
    readonly stream: WriteStream,
    private readonly indent: string | undefined,
  ) {
    stream.on('error', (err) => {
      this.error ??= err;
    });
  }

  push(value: unknown) {
    const sep = this.count++ === 0 ? '[' : ',';
    if (this.indent === undefined) this.buffer += sep + JSON.stringify(value);
    else this.buffer += `${sep}\n${this.indent}${JSON.stringify(value, null, 2).replaceAll('\n', `\n${this.indent}`)}`;
  }

  get pending() {
    return this.buffer.length;
  }

  async flush() {
    if (this.error) throw this.error;
    if (!this.buffer) return;
    const ok = this.stream.write(this.buffer);
    this.buffer = '';
    if (!ok) await once(this.stream, 'drain');
  }

  /** text that closes the array at `outer` indentation (the whole array when it is empty) */
  close(outer: string): string {
    if (this.count === 0) return '[]';
    return this.indent === undefined ? ']' : `\n${outer}]`;
  }
}

/**
 * Writes the import body to a temporary file next to the output and renames it at the end, so a
 * failed run never leaves a half body behind. Metadata is spooled to a second temporary file because
 * it follows all users in the body but arrives with each of them.
 */
export class FileSink implements ImportSink {
  private readonly tmp: string;
  private readonly metaTmp: string;
  private readonly linksTmp: string;
  private readonly users: ArrayWriter;
  private readonly metadata: ArrayWriter;
  /** links, one JSON per line: which of them go into the body is known only at the end */
  private readonly links: WriteStream;
  private linksBuffer = '';
  private linksError: Error | undefined;

  constructor(
    private readonly output: string,
    orgId: string,
    private readonly timeout: string,
    private readonly multiline: boolean,
  ) {
    this.tmp = `${output}.${process.pid}.tmp`;
    this.metaTmp = `${output}.${process.pid}.metadata.tmp`;
    this.linksTmp = `${output}.${process.pid}.links.tmp`;
    this.links = createWriteStream(this.linksTmp);
    this.links.on('error', (err) => {
      this.linksError ??= err;
    });
    const item = multiline ? ' '.repeat(10) : undefined;
    this.users = new ArrayWriter(createWriteStream(this.tmp), item);
    this.metadata = new ArrayWriter(createWriteStream(this.metaTmp), item);
    const head = multiline
      ? `{\n  "dataOrgs": {\n    "orgs": [\n      {\n        "orgId": ${JSON.stringify(orgId)},\n        "humanUsers": `
      : `{"dataOrgs":{"orgs":[{"orgId":${JSON.stringify(orgId)},"humanUsers":`;
    this.users.stream.write(head);
  }

  add(user: ImportHumanUser, metadata: ImportUserMetadata[], links: ImportUserLinkItem[]): void {
    this.users.push(user);
    for (const m of metadata) this.metadata.push(m);
    for (const l of links) this.linksBuffer += `${JSON.stringify(l)}\n`;
  }

  async flush(): Promise<void> {
    if (this.users.pending > WRITE_CHUNK) await this.users.flush();
    if (this.metadata.pending > WRITE_CHUNK) await this.metadata.flush();
    if (this.linksBuffer.length > WRITE_CHUNK) await this.flushLinks();
  }

  private async flushLinks() {
    if (this.linksError) throw this.linksError;
    if (!this.linksBuffer) return;
    const ok = this.links.write(this.linksBuffer);
    this.linksBuffer = '';
    if (!ok) await once(this.links, 'drain');
  }

  /** Writes `"key": [items]` into the body, one element at a time, as the other arrays are written. */
  private async writeArray(key: string, items: AsyncIterable<unknown> | Iterable<unknown>) {
    const outer = ' '.repeat(8);
    const out = this.users.stream;
    const writer = new ArrayWriter(out, this.multiline ? ' '.repeat(10) : undefined);
    out.write(this.multiline ? `,\n${outer}"${key}": ` : `,"${key}":`);
    for await (const item of items) {
      writer.push(item);
      if (writer.pending > WRITE_CHUNK) await writer.flush();
    }
    await writer.flush();
    out.write(writer.close(outer));
  }

  async finish(org: TargetOrg, idps: TargetIdps): Promise<void> {
    const ml = this.multiline;
    const outer = ' '.repeat(8);
    await this.users.flush();
    await this.metadata.flush();
    await this.flushLinks();
    this.metadata.stream.end();
    await once(this.metadata.stream, 'finish');
    this.links.end();
    await once(this.links, 'finish');
    const out = this.users.stream;
    out.write(`${this.users.close(outer)}${ml ? `,\n${outer}"userMetadata": ` : ',"userMetadata":'}`);
    await pipeline(createReadStream(this.metaTmp), out, { end: false });
    out.write(this.metadata.close(outer));
    if (idps.idps.length > 0) {
      await this.writeArray('idps', idps.idps);
      await this.writeArray('userLinks', keptLinks(this.linksTmp, idps));
    }
    const name = JSON.stringify(org.name);
    const timeout = JSON.stringify(this.timeout);
    // Ends the org entry, the orgs array, dataOrgs and then the body, in the layout the rest was written in.
    out.write(
      ml
        ? `,\n${outer}"org": {\n${outer}  "name": ${name}\n${outer}}\n` +
            `      }\n    ]\n  },\n  "timeout": ${timeout}\n}\n`
        : `,"org":{"name":${name}}}]},"timeout":${timeout}}\n`,
    );
    out.end();
    await once(out, 'finish');
    await rm(this.metaTmp, { force: true });
    await rm(this.linksTmp, { force: true });
    await rename(this.tmp, this.output);
  }

  async abort(): Promise<void> {
    this.users.stream.destroy();
    this.metadata.stream.destroy();
    this.links.destroy();
    await rm(this.tmp, { force: true });
    await rm(this.metaTmp, { force: true });
    await rm(this.linksTmp, { force: true });
  }
}

/** The spooled links whose provider was converted. */
async function* keptLinks(file: string, idps: TargetIdps): AsyncGenerator<ImportUserLinkItem> {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (!line) continue;
    const link = JSON.parse(line) as ImportUserLinkItem;
    if (idps.keepLink(link.idpId)) yield link;
  }
}
