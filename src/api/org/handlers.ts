import { genderIn } from '../user/convert';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  DomainValidationType,
  OrganizationService,
  OrganizationState,
} from '../../../gen/portcullis/org/v2/org_service_pb';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { DomainSchema, OrganizationSchema } from '../../../gen/portcullis/org/v2/org_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import type { Org } from '../../domain/org/access';
import { createOrganization } from '../../domain/org/create-organization';
import {
  addOrganizationDomain,
  deleteOrganizationDomain,
  setPrimaryOrganizationDomain,
} from '../../domain/org/domains';
import {
  activateOrganization,
  deactivateOrganization,
  deleteOrganization,
  setOrganizationLoginPolicy,
  updateOrganization,
} from '../../domain/org/lifecycle';
import { generateDomainValidation, verifyDomain } from '../../domain/org/domain-validation';
import { deleteOrganizationMetadata, setOrganizationMetadata } from '../../domain/org/metadata';
import {
  type OrgDomain,
  type OrgFilter,
  type OrgMetadata,
  getOrganization,
  listOrganizationDomains,
  listOrganizationMetadata,
  listOrganizations,
} from '../../domain/org/queries';
import { ctxOf } from '../context';
import { pageIn, pageOut, textMethodIn } from '../convert/list';
import { datesOut, ts } from '../convert/time';
import { metadataValueBytes } from '../../domain/metadata-value';

const STATES: Record<string, OrganizationState> = {
  ACTIVE: OrganizationState.ACTIVE,
  INACTIVE: OrganizationState.INACTIVE,
  REMOVED: OrganizationState.REMOVED,
};

function orgOut(o: Org): MessageInitShape<typeof OrganizationSchema> {
  return {
    id: o.id,
    name: o.name,
    state: STATES[o.state] ?? OrganizationState.UNSPECIFIED,
    primaryDomain: o.primaryDomain,
    ...datesOut(o),
    allowRegistration: o.allowRegistration ?? undefined,
    loginWithEmailAllowed: o.loginWithEmailAllowed ?? undefined,
    userLoginMustBeDomain: o.userLoginMustBeDomain ?? undefined,
  };
}

function domainOut(d: OrgDomain): MessageInitShape<typeof DomainSchema> {
  return {
    organizationId: d.orgId,
    domain: d.domain,
    isPrimary: d.isPrimary,
    isVerified: d.isVerified,
    isGenerated: d.generated,
  };
}

const metadataOut = (m: OrgMetadata) => ({ key: m.key, value: metadataValueBytes(m.value) });

export function orgHandlers(deps: Deps): ServiceImpl<typeof OrganizationService> {
  return {
    async createOrganization(req, hc) {
      const r = await createOrganization(ctxOf(deps, hc), {
        id: req.organizationId,
        name: req.name,
        admins: req.admins.map((a, i) => {
          const roles = a.roles;
          if (a.userType.case === 'userId') return { userId: a.userType.value, roles };
          if (a.userType.case === 'human') {
            const h = a.userType.value;
            return {
              roles,
              human: {
                username: h.username,
                givenName: h.profile?.givenName ?? '',
                familyName: h.profile?.familyName ?? '',
                nickName: h.profile?.nickName,
                displayName: h.profile?.displayName,
                preferredLanguage: h.profile?.preferredLanguage,
                gender: genderIn(h.profile?.gender) || undefined,
                email: h.email?.email ?? '',
                emailVerified: h.email?.isVerified,
                password: h.password?.password,
                passwordChangeRequired: h.password?.changeRequired,
              },
            };
          }
          throw invalidArgument('Errors.Invalid.admins', `admins[${i}] needs user_id or human`);
        }),
      });
      return {
        organizationId: r.id,
        createdAdmins: r.adminIds.map((userId) => ({ userId })),
        creationDate: ts(r.createdAt),
      };
    },
    async getOrganization(req, hc) {
      return { organization: orgOut(await getOrganization(ctxOf(deps, hc), req.organizationId)) };
    },
    async listOrganizations(req, hc) {
      const filters: OrgFilter[] = req.filters.map((f) => {
        switch (f.filter.case) {
          case 'nameFilter':
            return { name: f.filter.value.name, method: textMethodIn(f.filter.value.method) ?? 'equals' };
          case 'domainFilter':
            return { domain: f.filter.value.domain, method: textMethodIn(f.filter.value.method) ?? 'equals' };
          case 'stateFilter':
            if (f.filter.value.state === OrganizationState.INACTIVE) return { state: 'INACTIVE' };
            if (f.filter.value.state === OrganizationState.ACTIVE) return { state: 'ACTIVE' };
            throw invalidArgument('Errors.Invalid.filters', 'filters.state_filter.state must be ACTIVE or INACTIVE');
          case 'idFilter':
            return { ids: f.filter.value.ids };
          default:
            throw invalidArgument('Errors.Invalid.filters', 'filters: empty filter');
        }
      });
      const r = await listOrganizations(ctxOf(deps, hc), { filters, page: pageIn(req.pagination) });
      return { pagination: pageOut(r), organizations: r.items.map(orgOut) };
    },
    async updateOrganization(req, hc) {
      const r = await updateOrganization(ctxOf(deps, hc), { orgId: req.organizationId, name: req.name });
      return { changeDate: ts(r.changedAt) };
    },
    async setOrganizationLoginPolicy(req, hc) {
      const r = await setOrganizationLoginPolicy(ctxOf(deps, hc), {
        orgId: req.organizationId,
        allowRegistration: req.allowRegistration,
        loginWithEmailAllowed: req.loginWithEmailAllowed,
        userLoginMustBeDomain: req.userLoginMustBeDomain,
      });
      return { changeDate: ts(r.changedAt) };
    },
    async deactivateOrganization(req, hc) {
      const r = await deactivateOrganization(ctxOf(deps, hc), { orgId: req.organizationId });
      return { changeDate: ts(r.changedAt) };
    },
    async activateOrganization(req, hc) {
      const r = await activateOrganization(ctxOf(deps, hc), { orgId: req.organizationId });
      return { changeDate: ts(r.changedAt) };
    },
    async deleteOrganization(req, hc) {
      const r = await deleteOrganization(ctxOf(deps, hc), { orgId: req.organizationId });
      return { deletionDate: ts(r.deletedAt) };
    },
    async addOrganizationDomain(req, hc) {
      const r = await addOrganizationDomain(ctxOf(deps, hc), { orgId: req.organizationId, domain: req.domain });
      return { creationDate: ts(r.createdAt) };
    },
    async listOrganizationDomains(req, hc) {
      const r = await listOrganizationDomains(ctxOf(deps, hc), {
        orgId: req.organizationId,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), domains: r.items.map(domainOut) };
    },
    async deleteOrganizationDomain(req, hc) {
      const r = await deleteOrganizationDomain(ctxOf(deps, hc), { orgId: req.organizationId, domain: req.domain });
      return { deletionDate: ts(r.deletedAt) };
    },
    async setPrimaryOrganizationDomain(req, hc) {
      const r = await setPrimaryOrganizationDomain(ctxOf(deps, hc), { orgId: req.organizationId, domain: req.domain });
      return { changeDate: ts(r.changedAt) };
    },
    async generateOrganizationDomainValidation(req, hc) {
      return generateDomainValidation(ctxOf(deps, hc), {
        orgId: req.organizationId,
        domain: req.domain,
        type: req.type === DomainValidationType.DNS ? 'dns' : undefined,
      });
    },
    async verifyOrganizationDomain(req, hc) {
      const r = await verifyDomain(ctxOf(deps, hc), { orgId: req.organizationId, domain: req.domain });
      return { changeDate: ts(r.verifiedAt) };
    },
    async setOrganizationMetadata(req, hc) {
      const r = await setOrganizationMetadata(ctxOf(deps, hc), { orgId: req.organizationId, metadata: req.metadata });
      return { setDate: ts(r.setAt) };
    },
    async listOrganizationMetadata(req, hc) {
      const r = await listOrganizationMetadata(ctxOf(deps, hc), {
        orgId: req.organizationId,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), metadata: r.items.map(metadataOut) };
    },
    async deleteOrganizationMetadata(req, hc) {
      const r = await deleteOrganizationMetadata(ctxOf(deps, hc), { orgId: req.organizationId, keys: req.keys });
      return { deletionDate: ts(r.deletedAt) };
    },
  };
}
