import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { applicationKeys } from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, permissionDenied } from '../errors';
import { execute } from '../execute';
import { newId } from '../ids';
import { applicationEvents, loadWritableApplication } from './commands';
import { type AppType, usesKeys } from './model';
import { getApplication } from './queries';
import { checkRequiredId } from './validate';

const generateRsa = promisify(generateKeyPair);

/** The key file handed out once: its JSON form is what private_key_jwt clients load. */
export interface ApplicationKeyFile {
  type: 'application';
  keyId: string;
  /** PKCS#8 PEM private key; the server keeps only the public key */
  key: string;
  appId: string;
  clientId: string;
}

/**
 * Generates an RSA 2048 key pair for a private_key_jwt application. The pair is generated before
 * the transaction (it takes CPU time on the thread pool) and only the public key is stored.
 */
export async function createApplicationKey(
  ctx: Ctx,
  input: { applicationId: string; expiresAt?: Date },
): Promise<{ keyId: string; createdAt: Date; expiresAt?: Date; keyFile: ApplicationKeyFile }> {
  checkRequiredId(input.applicationId, 'application_id');
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw invalidArgument('Errors.Application.Key.ExpirationInPast', 'expiration_date must be in the future');
  }
  // Check before spending CPU on the key pair; the transaction checks again.
  const visible = await getApplication(ctx, input.applicationId);
  if (!ctx.principal.canProject('project.app.write', visible.projectId, visible.orgId))
    throw permissionDenied('needs project.app.write on the project');
  if (!usesKeys(visible.type, visible.type === 'OIDC' ? visible.oidc : visible.api)) throw notKeyMethod();
  const pair = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return execute(ctx, async (work) => {
    const app = await loadWritableApplication(work, input.applicationId);
    const type = app.type as AppType;
    if (!app.clientId || !usesKeys(type, type === 'OIDC' ? app.oidc : app.api)) {
      throw notKeyMethod();
    }
    const keyId = newId();
    const [row] = await work.tx
      .insert(applicationKeys)
      .values({
        id: keyId,
        applicationId: app.id,
        clientId: app.clientId,
        publicKey: pair.publicKey,
        expiresAt: input.expiresAt,
      })
      .returning({ createdAt: applicationKeys.createdAt });
    applicationEvents(
      work,
      app.projectId,
      app.orgId,
    )('project.application.key.added', {
      appId: app.id,
      keyId,
      keyType: 'JSON',
      expirationDate: input.expiresAt?.toISOString(),
    });
    return {
      keyId,
      createdAt: row.createdAt,
      expiresAt: input.expiresAt,
      keyFile: { type: 'application', keyId, key: pair.privateKey, appId: app.id, clientId: app.clientId },
    };
  });
}

const notKeyMethod = () =>
  failedPrecondition(
    'Errors.Application.Key.NotKeyMethod',
    'keys are only for applications with auth_method_type PRIVATE_KEY_JWT',
  );

/** Removes a key; a key that is already gone is a success. */
export async function deleteApplicationKey(
  ctx: Ctx,
  input: { applicationId: string; keyId: string },
): Promise<{ deletedAt: Date }> {
  checkRequiredId(input.keyId, 'key_id');
  return execute(ctx, async (work) => {
    const app = await loadWritableApplication(work, input.applicationId);
    const removed = await work.tx
      .delete(applicationKeys)
      .where(and(eq(applicationKeys.id, input.keyId), eq(applicationKeys.applicationId, app.id)))
      .returning({ id: applicationKeys.id });
    if (removed.length > 0) {
      applicationEvents(
        work,
        app.projectId,
        app.orgId,
      )('project.application.key.removed', { appId: app.id, keyId: input.keyId });
    }
    return { deletedAt: new Date() };
  });
}
