import type { Permission } from '../../authz/roles';
import type { Ctx } from '../context';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import { submitCreate } from './create-batch';
import { prepareHumanPassword } from './password';
import {
  checkEmail,
  checkId,
  checkLanguage,
  checkMetadata,
  checkPhone,
  checkUrlTemplate,
  checkMachineUsername,
  checkUsername,
  optionalText,
  requireText,
} from './validate';
import type { CreateUserInput, CreateUserResult } from './create-user-input';

// CreateUser (v2 and v1): checks the input and the caller's permission, then hands the create to the batch writer.

/** Checks that the caller may add users to the organization; a foreign organization is NOT_FOUND. */
function authorizeOrg(ctx: Ctx, orgId: string, need: Permission): void {
  if (ctx.principal.canOrg(need, orgId)) return;
  if (ctx.principal.canOrg('org.read', orgId) || ctx.principal.canOrg('user.read', orgId)) {
    throw permissionDenied(`needs ${need} on the organization`);
  }
  throw notFound('Errors.Org.NotFound', 'organization not found');
}

/** CreateUser: one command for human and machine users. */
export async function createUser(ctx: Ctx, input: CreateUserInput): Promise<CreateUserResult> {
  const orgId = checkId('organization_id', input.orgId);
  const id = input.userId ? checkId('user_id', input.userId) : undefined;
  if (!input.human === !input.machine)
    throw invalidArgument('Errors.User.TypeMissing', 'exactly one of human or machine is required');
  authorizeOrg(ctx, orgId, 'user.write');

  if (input.machine) {
    const m = input.machine;
    const username = checkMachineUsername('username', input.username);
    const name = requireText('machine.name', m.name);
    const description = optionalText('machine.description', m.description, 500);
    return submitCreate(ctx, {
      user: { machine: { id, orgId, username, name, description, accessTokenType: m.accessTokenType } },
    });
  }

  const h = input.human!;
  if (!h.profile) throw invalidArgument('Errors.User.Profile.Missing', 'human.profile is required');
  if (!h.email) throw invalidArgument('Errors.User.Email.Missing', 'human.email is required');
  const profile = h.profile;
  const givenName = requireText('human.profile.given_name', profile.givenName);
  const familyName = requireText('human.profile.family_name', profile.familyName);
  const nickName = optionalText('human.profile.nick_name', profile.nickName);
  const displayName = optionalText('human.profile.display_name', profile.displayName);
  const preferredLanguage = checkLanguage('human.profile.preferred_language', profile.preferredLanguage);
  const email = checkEmail('human.email.email', h.email.email);
  const username = input.username !== undefined ? checkUsername('username', input.username) : email;
  const phone = h.phone ? checkPhone('human.phone.phone', h.phone.phone) : undefined;
  const emailVerification = h.email.verification;
  if ('send' in emailVerification)
    checkUrlTemplate('human.email.send_code.url_template', emailVerification.send.urlTemplate);
  if (h.metadata) checkMetadata('human.metadata', h.metadata);
  const password = h.password ? await prepareHumanPassword(ctx, ctx.instanceId, h.password) : undefined;
  const emailVerified = 'verified' in emailVerification;
  return submitCreate(ctx, {
    user: {
      human: {
        id,
        orgId,
        username,
        givenName,
        familyName,
        nickName,
        displayName,
        preferredLanguage,
        gender: profile.gender || undefined,
        email,
        emailVerified,
        phone,
        phoneVerified: !!h.phone && 'verified' in h.phone.verification,
        passwordHash: password?.hash,
        passwordChangeRequired: password?.changeRequired,
        state: input.initialState && !password && !emailVerified ? 'INITIAL' : 'ACTIVE',
      },
    },
    metadata: h.metadata,
    emailCode: emailVerified
      ? undefined
      : 'return' in emailVerification
        ? { return: true }
        : { send: emailVerification.send },
    phoneCode: !!h.phone && 'return' in h.phone.verification,
  });
}
