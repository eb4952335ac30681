import { createRegistry, type DescFile, type DescService, type Registry, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

/**
 * What server reflection tells about the API, built from the generated file descriptors (gen/):
 * the services and every .proto file they need, imports included (google/protobuf/timestamp.proto
 * and friends come from @bufbuild/protobuf's own descriptors).
 */
export class ApiDescriptions {
  private readonly files = new Map<string, DescFile>();
  private readonly encoded = new Map<string, Uint8Array>();
  private readonly registry: Registry;
  readonly serviceNames: string[];

  constructor(services: DescService[]) {
    const unique = [...new Map(services.map((s) => [s.typeName, s])).values()];
    this.serviceNames = unique.map((s) => s.typeName).sort();
    for (const s of unique) this.addFile(s.file);
    this.registry = createRegistry(...this.files.values());
  }

  private addFile(file: DescFile): void {
    if (this.files.has(file.name)) return;
    this.files.set(file.name, file);
    for (const dep of file.dependencies) this.addFile(dep);
  }

  /** The serialized file and every file it imports, transitively; the file itself first. */
  fileWithImports(fileName: string): Uint8Array[] | undefined {
    const file = this.files.get(fileName.replace(/\.proto$/, ''));
    if (!file) return undefined;
    const seen = new Set<string>();
    const out: Uint8Array[] = [];
    const visit = (f: DescFile) => {
      if (seen.has(f.name)) return;
      seen.add(f.name);
      out.push(this.encode(f));
      for (const dep of f.dependencies) visit(dep);
    };
    visit(file);
    return out;
  }

  /**
   * The file defining a fully-qualified symbol: a service, method, message, enum, or a field or enum
   * value (then its parent is looked up).
   */
  fileContainingSymbol(symbol: string): Uint8Array[] | undefined {
    const name = symbol.replace(/^\./, '');
    const found = this.registry.get(name) ?? this.registry.get(name.slice(0, Math.max(0, name.lastIndexOf('.'))));
    return found ? this.fileWithImports(found.file.name) : undefined;
  }

  hasMessage(typeName: string): boolean {
    return this.registry.getMessage(typeName.replace(/^\./, '')) !== undefined;
  }

  private encode(file: DescFile): Uint8Array {
    let bytes = this.encoded.get(file.name);
    if (!bytes) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.encoded.set(file.name, bytes);
    }
    return bytes;
  }
}
