import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { execute } from '../../src/domain/execute';
import { addOrganizationDomainIn } from '../../src/domain/org/domains';
import { startTestServer, type TestServer } from '../helpers/server';
import { systemCtx } from '../helpers/context';
import { addRelyingParty, signedInSubject } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { addUser } from '../helpers/users';

/**
 * The domain policy (userLoginMustBeDomain): two organizations may each have an `alice`, each signs in
 * with her own login name, and neither can sign in as the other — by the bare name, by the other's
 * login name, or by a username that would shadow a login name.
 */
describe('usernames per organization (userLoginMustBeDomain)', () => {
  let server: TestServer;
  let config: client.Configuration;
  const orgs = () => server.client(OrganizationService);
  const domainOf = async (orgId: string) =>
    (await orgs().getOrganization({ organizationId: orgId })).organization!.primaryDomain;
  const org = async (name: string) => (await orgs().createOrganization({ name })).organizationId;

  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
  });
  afterAll(() => server?.stop());

  /** The user id the sign-in ends as, or undefined when it fails. */
  const signIn = (loginName: string, password: string, scope?: string) =>
    signedInSubject(server, config, loginName, password, scope);

  it('two organizations each have an alice; each signs in with her login name and never as the other', async () => {
    const [a, b] = [await org('UnitOfWork A'), await org('UnitOfWork B')];
    const alice = await addUser(server, { orgId: a, username: 'alice', password: 'Alice-A-passw0rd' });
    const twin = await addUser(server, { orgId: b, username: 'Alice', password: 'Alice-B-passw0rd' });
    // Unique within the organization, case-insensitively.
    await expect(addUser(server, { orgId: a, username: 'ALICE' })).rejects.toMatchObject({
      key: 'Errors.User.AlreadyExisting',
    });

    const [da, db] = [await domainOf(a), await domainOf(b)];
    expect(await signIn(`alice@${da}`, alice.password)).toBe(alice.id);
    expect(await signIn(`ALICE@${db.toUpperCase()}`, twin.password)).toBe(twin.id);
    // The attacker in B knows her own password, not A's: A's login name with B's password fails, and
    // the bare name is ambiguous, so it names nobody.
    expect(await signIn(`alice@${da}`, twin.password)).toBeUndefined();
    expect(await signIn('alice', alice.password)).toBeUndefined();
    expect(await signIn('alice', twin.password)).toBeUndefined();
    // The sign-in for one organization (org scope) accepts the bare name of its own user only.
    expect(await signIn('alice', alice.password, `openid urn:service:iam:org:id:${a}`)).toBe(alice.id);
    expect(await signIn('alice', twin.password, `openid urn:service:iam:org:id:${a}`)).toBeUndefined();

    const got = await server.client(UserService).getUserByID({ userId: alice.id });
    expect(got.user?.loginNames).toEqual([`alice@${da}`]);
  });

  it('a bare username that one user has is accepted; any verified domain of the organization works', async () => {
    const c = await org('UnitOfWork C');
    const grace = await addUser(server, { orgId: c, username: 'grace-unique' });
    expect(await signIn('grace-unique', grace.password)).toBe(grace.id);
    await execute(systemCtx(server), (work) =>
      addOrganizationDomainIn(work, { orgId: c, domain: 'navy.example', verified: true }),
    );
    await execute(systemCtx(server), (work) =>
      addOrganizationDomainIn(work, { orgId: c, domain: 'unverified.example' }),
    );
    expect(await signIn('grace-unique@navy.example', grace.password)).toBe(grace.id);
    expect(await signIn('grace-unique@unverified.example', grace.password)).toBeUndefined();
    // A username that looks like another organization's login name is refused, so it cannot shadow it.
    const d = await org('UnitOfWork D');
    await expect(
      addUser(server, { orgId: d, username: 'grace-unique@navy.example', email: 'g@d.example' }),
    ).rejects.toMatchObject({ key: 'Errors.User.Username.ForeignDomain' });
  });

  it('an organization with the policy off has instance-unique usernames that are login names alone', async () => {
    const [loose, loose2, strict] = [await org('Loose'), await org('Loose 2'), await org('Strict')];
    for (const o of [loose, loose2])
      await orgs().setOrganizationLoginPolicy({ organizationId: o, userLoginMustBeDomain: false });
    expect((await orgs().getOrganization({ organizationId: loose })).organization?.userLoginMustBeDomain).toBe(false);
    const carol = await addUser(server, { orgId: loose, username: 'carol' });
    await expect(addUser(server, { orgId: loose2, username: 'CAROL' })).rejects.toMatchObject({
      key: 'Errors.User.AlreadyExisting',
    });
    // A strict organization's carol is carol@<its domain>; the bare name stays the loose one's login name.
    const strictCarol = await addUser(server, { orgId: strict, username: 'carol', password: 'Strict-passw0rd' });
    expect(await signIn('carol', carol.password)).toBe(carol.id);
    expect(await signIn('carol', strictCarol.password)).toBeUndefined();
    expect(await signIn(`carol@${await domainOf(strict)}`, strictCarol.password)).toBe(strictCarol.id);
    expect((await server.client(UserService).getUserByID({ userId: carol.id })).user?.loginNames).toContain('carol');

    // Turning the policy off where it would make two users share a username is refused, and changes nothing.
    const err = await orgs()
      .setOrganizationLoginPolicy({ organizationId: strict, userLoginMustBeDomain: false })
      .catch((e) => e);
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.rawMessage).toContain('"carol"');
    expect(
      (await orgs().getOrganization({ organizationId: strict })).organization?.userLoginMustBeDomain,
    ).toBeUndefined();
    expect(await signIn(`carol@${await domainOf(strict)}`, strictCarol.password)).toBe(strictCarol.id);
    // Back to the default: the loose organization's usernames become per-organization again.
    await orgs().setOrganizationLoginPolicy({ organizationId: loose });
    expect(await signIn('carol', carol.password)).toBeUndefined();
    expect(await signIn(`carol@${await domainOf(loose)}`, carol.password)).toBe(carol.id);
  });

  it("an org's owner cannot turn its domain policy off to take other orgs' bare login names", async () => {
    const [mine, other] = [await org('Owner Org'), await org('Other Org')];
    const victim = await addUser(server, { orgId: other, username: 'chief', password: 'Victim-passw0rd' });
    const owner = await addMachineWithToken(server, mine, { username: 'owner-of-mine', roles: ['ORG_OWNER'] });
    const asOwner = server.client(OrganizationService, { token: owner.token });
    for (const target of [mine, other]) {
      const err = await asOwner
        .setOrganizationLoginPolicy({ organizationId: target, userLoginMustBeDomain: false })
        .catch((e) => e);
      expect([Code.PermissionDenied, Code.NotFound]).toContain(err.code);
    }
    const own = await orgs().getOrganization({ organizationId: mine });
    expect(own.organization?.userLoginMustBeDomain).toBeUndefined();
    // What stays the owner's to decide still works, and the bare name still names the victim alone.
    await asOwner.setOrganizationLoginPolicy({ organizationId: mine, allowRegistration: false });
    await addUser(server, { orgId: mine, username: 'chief-2' });
    expect(await signIn('chief', victim.password)).toBe(victim.id);
  });

  it('machine usernames are client ids: unique in the instance whatever the policy', async () => {
    const [g, h] = [await org('Machines G'), await org('Machines H')];
    const users = server.client(UserService);
    await users.createUser({
      organizationId: g,
      username: 'ci-bot',
      userType: { case: 'machine', value: { name: 'ci' } },
    });
    const err = await users
      .createUser({ organizationId: h, username: 'CI-BOT', userType: { case: 'machine', value: { name: 'ci' } } })
      .catch((x) => x);
    expect(err.code).toBe(Code.AlreadyExists);
  });

  it('an organization may turn email login on or off against the instance setting', async () => {
    const [on, off] = [await org('Email On'), await org('Email Off')];
    const u1 = await addUser(server, { orgId: on, email: 'one@mail-on.example' });
    const u2 = await addUser(server, { orgId: off, email: 'two@mail-off.example' });
    await orgs().setOrganizationLoginPolicy({ organizationId: off, loginWithEmailAllowed: false });
    expect(await signIn('one@mail-on.example', u1.password)).toBe(u1.id);
    expect(await signIn('two@mail-off.example', u2.password)).toBeUndefined();
    const settings = server.client(InstanceService);
    await settings.updateInstanceSettings({ loginWithEmailAllowed: false });
    await orgs().setOrganizationLoginPolicy({ organizationId: on, loginWithEmailAllowed: true });
    try {
      expect(await signIn('one@mail-on.example', u1.password)).toBe(u1.id);
      expect((await orgs().getOrganization({ organizationId: on })).organization?.loginWithEmailAllowed).toBe(true);
    } finally {
      await settings.updateInstanceSettings({ loginWithEmailAllowed: true });
    }
  });
});

describe('the instance domain policy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('moves every inheriting organization, and is refused while two users would share a username', async () => {
    const orgs = server.client(OrganizationService);
    const settings = server.client(InstanceService);
    const e = (await orgs.createOrganization({ name: 'Inst E' })).organizationId;
    const f = (await orgs.createOrganization({ name: 'Inst F' })).organizationId;
    const dup = await addUser(server, { orgId: e, username: 'dupname' });
    const other = await addUser(server, { orgId: f, username: 'DupName' });
    const err = await settings.updateInstanceSettings({ userLoginMustBeDomain: false }).catch((x) => x);
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.rawMessage).toContain('"dupname"');
    expect((await settings.getInstanceSettings({})).settings?.userLoginMustBeDomain).toBe(true);
    // An organization that keeps its own policy stays out of it: F keeps per-organization names.
    await orgs.setOrganizationLoginPolicy({ organizationId: f, userLoginMustBeDomain: true });
    await settings.updateInstanceSettings({ userLoginMustBeDomain: false });
    expect((await server.client(UserService).getUserByID({ userId: dup.id })).user?.loginNames).toContain('dupname');
    expect((await server.client(UserService).getUserByID({ userId: other.id })).user?.loginNames).not.toContain(
      'DupName',
    );
    await expect(addUser(server, { orgId: e, username: 'DUPNAME' })).rejects.toMatchObject({
      key: 'Errors.User.AlreadyExisting',
    });
    const g = (await orgs.createOrganization({ name: 'Inst G' })).organizationId;
    await expect(addUser(server, { orgId: g, username: 'dupname' })).rejects.toMatchObject({
      key: 'Errors.User.AlreadyExisting',
    });
    await settings.updateInstanceSettings({ userLoginMustBeDomain: true });
    await addUser(server, { orgId: g, username: 'dupname' });
  });
});
