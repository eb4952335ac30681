import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { notificationOutbox } from '../../../src/domain/notification/outbox';
import { startTestServer, type TestServer } from '../../helpers/server';
import { defaultOrgId, systemCtx } from '../../helpers/context';

/** A minimal SMTP server on loopback that records each message it accepts. */
function startSmtpSink(): Promise<{ port: number; messages: string[]; close: () => void }> {
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    let inData = false;
    let buffer = '';
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl).toUpperCase();
        buffer = buffer.slice(nl + 2);
        if (line.startsWith('EHLO') || line.startsWith('HELO')) socket.write('250 sink\r\n');
        else if (line.startsWith('DATA')) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as net.AddressInfo).port, messages, close: () => server.close() }),
    ),
  );
}

describe('notification outbox delivery', () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let orgId: string;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    server = await startTestServer({
      PORTCULLIS_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PORTCULLIS_SMTP_FROM: 'Portcullis <no-reply@example.com>',
    });
    orgId = await defaultOrgId(server);
  });
  afterAll(async () => {
    await server?.stop();
    smtp?.close();
  });

  it('sends each message exactly once by SMTP, even with several deliverers claiming at once', async () => {
    const users = server.client(UserService);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { id } = await users.createUser({
        organizationId: orgId,
        userType: {
          case: 'human',
          value: { profile: { givenName: 'Mail', familyName: `No${i}` }, email: { email: `smtp-${i}@example.com` } },
        },
      });
      ids.push(id);
    }
    // Two more "replicas" race the server's own job for the same rows.
    const sentByReplicas: string[] = [];
    const replica = async (m: { id: string }) => {
      sentByReplicas.push(m.id);
    };
    await Promise.all([
      notificationOutbox.deliverBatch(systemCtx(server), replica),
      notificationOutbox.deliverBatch(systemCtx(server), replica),
    ]);
    let rows: { id: string; status: string; userId: string }[] = [];
    for (let i = 0; i < 100; i++) {
      rows = (await server.app.database.db.query.notifications.findMany()).filter((n) => ids.includes(n.userId));
      if (rows.length === 12 && rows.every((r) => r.status === 'SENT')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.status === 'SENT')).toBe(true);
    const bySmtp = rows.filter((r) => !sentByReplicas.includes(r.id));
    expect(new Set(sentByReplicas).size).toBe(sentByReplicas.length);
    expect(smtp.messages.length).toBe(bySmtp.length);
    expect(sentByReplicas.length + smtp.messages.length).toBe(12);
    if (smtp.messages.length) {
      expect(smtp.messages[0]).toMatch(/Subject: Verify your email address/);
      expect(smtp.messages[0]).toMatch(/From: Portcullis <no-reply@example.com>/);
    }
  });
});
