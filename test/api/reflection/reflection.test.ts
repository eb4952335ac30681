import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { type FileDescriptorProto, FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerReflectionRequest, ServerReflection as V1 } from '../../../gen/grpc/reflection/v1/reflection_pb';
import { ServerReflection as V1alpha } from '../../../gen/grpc/reflection/v1alpha/reflection_pb';
import { routes } from '../../../src/api/router';
import { startTestServer, type TestServer } from '../../helpers/server';

const run = promisify(execFile);
const BUF = path.resolve('node_modules/.bin/buf');

/** Sends the questions on one stream (no token: reflection is public) and collects the answers. */
async function ask(
  server: TestServer,
  service: typeof V1 | typeof V1alpha,
  questions: ServerReflectionRequest['messageRequest'][],
) {
  const client = createClient(service as typeof V1, createGrpcTransport({ baseUrl: server.url }));
  async function* requests() {
    for (const messageRequest of questions) yield { host: 'localhost', messageRequest };
  }
  const answers = [];
  for await (const res of client.serverReflectionInfo(requests())) answers.push(res);
  return answers;
}

/** A registry built only from the answer, as a client without proto files builds it. */
function registryOf(files: Uint8Array[]) {
  const protos = files.map((b) => fromBinary(FileDescriptorProtoSchema, b));
  const byName = new Map(protos.map((p) => [p.name, p]));
  const ordered: FileDescriptorProto[] = [];
  const visit = (p: FileDescriptorProto) => {
    if (ordered.includes(p)) return;
    for (const dep of p.dependency) visit(byName.get(dep) ?? expect.unreachable(`${dep} is missing from the answer`));
    ordered.push(p);
  };
  protos.forEach(visit);
  return createFileRegistry(create(FileDescriptorSetSchema, { file: ordered }));
}

describe('gRPC server reflection', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('lists every registered service, on v1 and v1alpha', async () => {
    const registered = new Set<string>();
    routes(server.app.deps)({
      handlers: [],
      service: (s: { typeName: string }) => registered.add(s.typeName),
      rpc: () => undefined,
    } as never);
    expect(registered).toContain('portcullis.instance.v2.InstanceService');
    expect(registered).toContain('portcullis.application.v2.ApplicationService');
    for (const service of [V1, V1alpha]) {
      const [answer] = await ask(server, service, [{ case: 'listServices', value: '' }]);
      expect(answer.messageResponse.case).toBe('listServicesResponse');
      const names =
        answer.messageResponse.case === 'listServicesResponse'
          ? answer.messageResponse.value.service.map((s) => s.name)
          : [];
      expect(names.sort()).toEqual([...registered].sort());
    }
  });

  it('answers file_containing_symbol with the file and its imports, enough to call a method', async () => {
    const [bySymbol, byMethod, byFile, missing] = await ask(server, V1, [
      { case: 'fileContainingSymbol', value: 'portcullis.application.v2.ApplicationService' },
      { case: 'fileContainingSymbol', value: 'portcullis.instance.v2.InstanceService.GetInstance' },
      { case: 'fileByFilename', value: 'google/protobuf/timestamp.proto' },
      { case: 'fileContainingSymbol', value: 'portcullis.nothing.v2.Nothing' },
    ]);
    expect(bySymbol.messageResponse.case).toBe('fileDescriptorResponse');
    const files =
      bySymbol.messageResponse.case === 'fileDescriptorResponse'
        ? bySymbol.messageResponse.value.fileDescriptorProto
        : [];
    const names = files.map((f) => fromBinary(FileDescriptorProtoSchema, f).name);
    expect(names[0]).toBe('portcullis/application/v2/application_service.proto');
    expect(names).toEqual(
      expect.arrayContaining([
        'portcullis/application/v2/application.proto',
        'portcullis/object/v2/object.proto',
        'google/protobuf/timestamp.proto',
        'google/protobuf/duration.proto',
        'google/protobuf/field_mask.proto',
      ]),
    );
    const registry = registryOf(files);
    const service = registry.getService('portcullis.application.v2.ApplicationService')!;
    expect(service.methods.map((m) => m.name)).toContain('CreateApplication');
    expect(registry.getMessage('portcullis.application.v2.OidcConfiguration')?.fields.map((f) => f.name)).toContain(
      'redirect_uris',
    );

    const instanceFiles =
      byMethod.messageResponse.case === 'fileDescriptorResponse'
        ? byMethod.messageResponse.value.fileDescriptorProto
        : [];
    expect(registryOf(instanceFiles).getService('portcullis.instance.v2.InstanceService')?.methods[0].name).toBe(
      'GetInstance',
    );

    expect(byFile.messageResponse.case).toBe('fileDescriptorResponse');
    expect(missing.messageResponse).toMatchObject({ case: 'errorResponse', value: { errorCode: 5 } });
    expect(missing.originalRequest?.messageRequest).toEqual({
      case: 'fileContainingSymbol',
      value: 'portcullis.nothing.v2.Nothing',
    });
  });

  it('lets buf curl list methods and call GetInstance without proto files', async () => {
    const listed = await run(
      BUF,
      ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '--list-methods', server.url],
      { timeout: 60_000 },
    );
    expect(listed.stdout).toContain('portcullis.instance.v2.InstanceService/GetInstance');
    expect(listed.stdout).toContain('portcullis.application.v2.ApplicationService/CreateApplication');
    const alpha = await run(
      BUF,
      [
        'curl',
        '--protocol',
        'grpc',
        '--http2-prior-knowledge',
        '--reflect-protocol',
        'grpc-v1alpha',
        '--list-services',
        server.url,
      ],
      { timeout: 60_000 },
    );
    expect(alpha.stdout.split('\n')).toContain('portcullis.application.v2.ApplicationService');

    const called = await run(
      BUF,
      [
        'curl',
        '--protocol',
        'grpc',
        '--http2-prior-knowledge',
        '-H',
        `Authorization: Bearer ${server.pat}`,
        `${server.url}/portcullis.instance.v2.InstanceService/GetInstance`,
      ],
      { timeout: 60_000 },
    );
    expect(JSON.parse(called.stdout).instance.id).toBe(server.app.bootstrap.instanceId);
  });
});
