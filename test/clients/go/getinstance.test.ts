import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { ROOT } from '../../helpers/process';
import { startTestServer, type TestServer } from '../../helpers/server';

/**
 * The Go recipe of docs/api.md, run as written: generate the Go stubs with buf.gen.go.yaml (local
 * protoc-gen-go and protoc-gen-go-grpc), build test/clients/go/getinstance in GOPATH mode against
 * Debian's Go packages under /usr/share/gocode, and call GetInstance over gRPC on a real server.
 * The program also links grpc-go's own reflection package and genproto's errdetails: a duplicate
 * proto registration would panic before main runs.
 */

/** Where Debian's golang-*-dev packages put their sources (grpc-go, protobuf-go). */
const DEBIAN_GOCODE = '/usr/share/gocode';
const TOOLS = ['go', 'protoc-gen-go', 'protoc-gen-go-grpc'];
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const ci = Boolean(process.env.CI);
if (missing.length > 0 && !ci) {
  console.warn(
    `test/clients/go: skipped, ${missing.join(', ')} not installed ` +
      '(apt-get install golang-go protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev ' +
      'golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev)',
  );
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop: the server under test lives in this process. */
function run(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('proto go_package', () => {
  // buf breaking leaves FILE_SAME_GO_PACKAGE out for proto/portcullis (see buf.yaml); this pins the
  // documented scheme instead, so a Go import path cannot change unnoticed.
  it('is portcullis.dev/gen/go/<proto package as folders>;<name><version> in every proto in proto/portcullis', () => {
    const dir = path.join(ROOT, 'proto/portcullis');
    const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.proto'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const pkg = text.match(/^package ([\w.]+);$/m)?.[1];
      expect(pkg, file).toBeDefined();
      const parts = pkg!.split('.');
      const expected = `portcullis.dev/gen/go/${parts.join('/')};${parts.slice(-2).join('')}`;
      expect(text.match(/^option go_package = "([^"]+)";$/m)?.[1], file).toBe(expected);
    }
  });
});

// In CI a missing tool is a failing test of its own (not a failing hook), so the summary counts it.
if (missing.length > 0 && ci) {
  it('has go, protoc-gen-go and protoc-gen-go-grpc in CI', () => {
    expect(missing, '.ci/run installs them with apt-get').toEqual([]);
  });
}

describe.skipIf(missing.length > 0)('Go client built from the generated stubs', () => {
  let server: TestServer;
  let work: string;
  let binary: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'portcullis-go-'));
    // -o puts the template's gen/go under the temporary directory: the test uses the committed
    // template unchanged and leaves the working copy alone.
    const gen = await run(path.join(ROOT, 'node_modules/.bin/buf'), [
      'generate',
      '--template',
      'buf.gen.go.yaml',
      '-o',
      work,
    ]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(
      fs.existsSync(
        path.join(work, 'gen/go/src/portcullis.dev/gen/go/portcullis/instance/v2/instance_service_grpc.pb.go'),
      ),
    ).toBe(true);
    // Only portcullis packages: the reflection and google.rpc copies are left out (buf.gen.go.yaml).
    expect(fs.readdirSync(path.join(work, 'gen/go/src/portcullis.dev/gen/go'))).toEqual(['portcullis']);

    binary = path.join(work, 'getinstance');
    const build = await run('go', ['build', '-o', binary, './test/clients/go/getinstance'], {
      env: {
        GO111MODULE: 'off',
        GOPATH: `${path.join(work, 'gen/go')}:${DEBIAN_GOCODE}`,
        // Module flags from the caller's environment would make GOPATH mode fail.
        GOFLAGS: '',
        // go needs a build cache; without HOME it has no default one.
        ...(process.env.HOME ? {} : { GOCACHE: path.join(work, 'gocache') }),
      },
      timeoutMs: 240_000,
    });
    expect(build.code, build.stderr).toBe(0);

    server = await startTestServer();
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('prints the instance as JSON from GetInstance over gRPC with the admin PAT', async () => {
    // A name this test sets, so the output is read from the server and not a default.
    await server.client(InstanceService).updateInstance({ instanceName: 'Go client check' });
    const expected = (await server.client(InstanceService).getInstance({})).instance!;

    const res = await run(binary, ['-addr', `127.0.0.1:${server.port}`], { env: { PORTCULLIS_PAT: server.pat } });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body.instance).toMatchObject({
      id: server.app.bootstrap.instanceId,
      name: 'Go client check',
      domain: expected.domain,
      defaultOrganizationId: expected.defaultOrganizationId,
    });
    expect(body.instance.id).toBe(expected.id);
  });

  it('reads the PAT from -pat-file', async () => {
    const file = path.join(work, 'admin.pat');
    fs.writeFileSync(file, `${server.pat}\n`, { mode: 0o600 });
    const res = await run(binary, ['-addr', `127.0.0.1:${server.port}`, '-pat-file', file], {
      env: { PORTCULLIS_PAT: '' },
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).instance.id).toBe(server.app.bootstrap.instanceId);
  });

  it('gets Unimplemented (a status, not a stream closed without trailers) for a method the server lacks', async () => {
    const res = await run(binary, ['-addr', `127.0.0.1:${server.port}`, '-method', '/portcullis.nope.v1.X/Y'], {
      env: { PORTCULLIS_PAT: server.pat },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/\/portcullis\.nope\.v1\.X\/Y: code=Unimplemented /);
  });

  it('exits 1 with Unauthenticated for a wrong PAT', async () => {
    const res = await run(binary, ['-addr', `127.0.0.1:${server.port}`], {
      env: { PORTCULLIS_PAT: 'pcp_not-a-real-token' },
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    // The reason comes from google.rpc.ErrorInfo, decoded by genproto's errdetails in the program.
    expect(res.stderr).toMatch(/GetInstance failed: code=Unauthenticated reason=Errors\.Token\.Invalid /);
  });
});
