import { and, eq, ne } from 'drizzle-orm';
import { hashPassword } from '../../crypto/passwords/index';
import { instances, users } from '../../db/schema/index';
import { addAdministrator, checkRoles } from '../administrator/commands';
import type { Ctx } from '../context';
import { invalidArgument, notFound } from '../errors';
import { execute } from '../execute';
import { checkPasswordPolicy, getInstanceSettings } from '../instance/settings';
import { optionalId, requireEmail, requireText, requireUsername } from '../instance/validate';
import { addHumanUser, type HumanProfile } from '../user/add-users';
import { addOrg } from './commands';
import { requireInstancePermission } from '../instance/permission';

export interface HumanAdminInput extends HumanProfile {
  username?: string;
  email: string;
  emailVerified?: boolean;
  password?: string;
  passwordChangeRequired?: boolean;
}

export interface CreateOrganizationInput {
  id?: string;
  name: string;
  admins: ({ userId: string; roles?: string[] } | { human: HumanAdminInput; roles?: string[] })[];
}

/**
 * Creates an organization and its first administrators in one transaction: existing users get the
 * roles (default ORG_OWNER); new human users are created in the new organization first.
 */
export async function createOrganization(
  ctx: Ctx,
  input: CreateOrganizationInput,
): Promise<{ id: string; createdAt: Date; adminIds: string[] }> {
  requireInstancePermission(ctx.principal, 'org.create');
  const name = requireText('name', input.name);
  const id = optionalId('organization_id', input.id);
  const settings = await getInstanceSettings(ctx, ctx.instanceId);
  // Password hashing is slow; it happens before the transaction so no row lock waits for it.
  const admins = await Promise.all(
    input.admins.map(async (a, i) => {
      const roles = a.roles?.length ? a.roles : ['ORG_OWNER'];
      checkRoles('ORG', roles);
      if ('userId' in a) {
        if (!a.userId) throw invalidArgument('Errors.Invalid.admins', `admins[${i}].user_id is required`);
        return { kind: 'existing' as const, userId: a.userId, roles };
      }
      const h = a.human;
      const field = `admins[${i}].human`;
      const email = requireEmail(`${field}.email.email`, h.email);
      const human = {
        // the same login-name rule as CreateUser: a username given must pass it; none means the email
        username: h.username?.trim() ? requireUsername(`${field}.username`, h.username) : email,
        givenName: requireText(`${field}.profile.given_name`, h.givenName),
        familyName: requireText(`${field}.profile.family_name`, h.familyName),
        nickName: h.nickName || undefined,
        displayName: h.displayName || undefined,
        preferredLanguage: h.preferredLanguage || undefined,
        gender: h.gender || undefined,
        email,
        emailVerified: h.emailVerified ?? false,
        passwordHash: undefined as string | undefined,
        passwordChangeRequired: h.passwordChangeRequired ?? false,
      };
      if (h.password) {
        checkPasswordPolicy(settings, h.password, `${field}.password.password`);
        human.passwordHash = await hashPassword(h.password);
      }
      return { kind: 'human' as const, human, roles };
    }),
  );
  return execute(ctx, async (work) => {
    const [instance] = await work.tx
      .select({ domain: instances.domain })
      .from(instances)
      .where(eq(instances.id, ctx.instanceId));
    const org = await addOrg(work, { id, name, instanceDomain: instance.domain });
    const adminIds: string[] = [];
    for (const a of admins) {
      let userId: string;
      if (a.kind === 'existing') {
        const [user] = await work.tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, a.userId), ne(users.state, 'REMOVED')));
        if (!user) throw notFound('Errors.User.NotFound', `admin user ${a.userId} not found`);
        userId = user.id;
      } else {
        userId = (await addHumanUser(work, { orgId: org.id, ...a.human })).id;
      }
      await addAdministrator(work, {
        userId,
        resourceType: 'ORG',
        resourceId: org.id,
        resourceOwner: org.id,
        roles: a.roles,
      });
      adminIds.push(userId);
    }
    return { id: org.id, createdAt: org.createdAt, adminIds };
  });
}
