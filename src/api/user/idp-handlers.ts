import type { ServiceImpl } from '@connectrpc/connect';
import type { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import type { Deps } from '../../deps';
import type { ExternalUser } from '../../domain/idp/external-user';
import { startIdentityProviderIntent, type StartedIntent } from '../../domain/idp/intents/start';
import { retrieveIntent } from '../../domain/idp/intents/use';
import { addIdpLink, type IdpLink, listIdpLinks, removeIdpLink } from '../../domain/idp/links';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { structOf } from '../convert/struct';
import { ts } from '../convert/time';
import { idpEnvOf } from '../../domain/idp/env';

export type IdpRpcs =
  | 'startIdentityProviderIntent'
  | 'retrieveIdentityProviderIntent'
  | 'addIDPLink'
  | 'listIDPLinks'
  | 'removeIDPLink';

function nextStepOut(s: StartedIntent) {
  if ('authUrl' in s) return { case: 'authUrl' as const, value: s.authUrl };
  if ('form' in s) return { case: 'formData' as const, value: s.form };
  const f = s.finished;
  return {
    case: 'idpIntent' as const,
    value: { idpIntentId: f.intentId, idpIntentToken: f.token, userId: f.userId ?? '' },
  };
}

function profileOut(u: ExternalUser) {
  return {
    username: u.username ?? '',
    email: u.email ?? '',
    emailVerified: u.emailVerified,
    givenName: u.givenName ?? '',
    familyName: u.familyName ?? '',
    displayName: u.displayName ?? '',
    nickName: u.nickName ?? '',
    phone: u.phone ?? '',
    preferredLanguage: u.preferredLanguage ?? '',
  };
}

const linkOut = (l: IdpLink) => ({ idpId: l.idpId, userId: l.externalUserId, userName: l.externalUsername });

/** The UserService RPCs of upstream identity providers: intents for a custom login UI, and links. */
export function idpHandlers(deps: Deps): Pick<ServiceImpl<typeof UserService>, IdpRpcs> {
  return {
    async startIdentityProviderIntent(req, hc) {
      const c = req.content;
      const started = await startIdentityProviderIntent(ctxOf(deps, hc), idpEnvOf(deps.config), {
        idpId: req.idpId,
        successUrl: c.case === 'urls' ? c.value.successUrl : undefined,
        failureUrl: c.case === 'urls' ? c.value.failureUrl : undefined,
        ldap: c.case === 'ldap' ? { username: c.value.username, password: c.value.password } : undefined,
      });
      return { idpIntentId: started.intentId, nextStep: nextStepOut(started) };
    },

    async retrieveIdentityProviderIntent(req, hc) {
      const r = await retrieveIntent(ctxOf(deps, hc), idpEnvOf(deps.config).masterKey, {
        intentId: req.idpIntentId,
        token: req.idpIntentToken,
      });
      const u = r.externalUser;
      return {
        idpInformation: {
          idpId: r.idpId,
          userId: u.id,
          userName: u.username ?? '',
          rawInformation: structOf(u.raw),
          accessToken: r.tokens?.accessToken ?? '',
          idToken: r.tokens?.idToken ?? '',
        },
        userId: r.userId ?? '',
        profile: profileOut(u),
      };
    },

    async addIDPLink(req, hc) {
      const link = req.idpLink;
      const createdAt = await addIdpLink(ctxOf(deps, hc), req.userId, {
        idpId: link?.idpId ?? '',
        externalUserId: link?.userId ?? '',
        externalUsername: link?.userName || undefined,
      });
      return { creationDate: ts(createdAt) };
    },

    async listIDPLinks(req, hc) {
      const res = await listIdpLinks(ctxOf(deps, hc), { userId: req.userId, page: pageIn(req.pagination) });
      return { pagination: pageOut(res), result: res.items.map(linkOut) };
    },

    async removeIDPLink(req, hc) {
      const removedAt = await removeIdpLink(ctxOf(deps, hc), {
        userId: req.userId,
        idpId: req.idpId,
        externalUserId: req.linkedUserId,
      });
      return { deletionDate: ts(removedAt) };
    },
  };
}
