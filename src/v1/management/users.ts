import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { notFound } from '../../domain/errors';
import { aggregateSequence } from '../../domain/events/sequence';
import { createUser } from '../../domain/user/create-user';
import { getUserById, listUsers } from '../../domain/user/queries';
import { details, v1Call } from '../context';
import { pageOf, searchAnswer } from '../list';
import { readJson } from '../request';
import { toCreateHuman, toCreateMachine, toUserFilters, toV1User } from './user-convert';

/** v1 user routes of the management API, onto the v2 CreateUser / GetUserByID / ListUsers. */
export function managementUserRoutes(deps: Deps) {
  const app = new Hono();
  const create = (kind: 'add' | 'import' | 'machine', service: string) => async (c: any) => {
    const { ctx, orgId } = await v1Call(deps, c, service);
    const body = await readJson(c);
    const input = kind === 'machine' ? toCreateMachine(orgId, body) : toCreateHuman(orgId, body, kind);
    const created = await createUser(ctx, input);
    return c.json({
      userId: created.id,
      details: await details(ctx, { type: 'user', id: created.id }, orgId, { created: created.createdAt }),
    });
  };
  app.post('/management/v1/users/human', create('add', 'management/v1/AddHumanUser'));
  app.post('/management/v1/users/human/_import', create('import', 'management/v1/ImportHumanUser'));
  app.post('/management/v1/users/machine', create('machine', 'management/v1/AddMachineUser'));

  app.get('/management/v1/users/:id', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/GetUserByID');
    const user = await getUserById(ctx, c.req.param('id'));
    // Management calls work inside one organization: a user of another one does not exist here.
    if (user.orgId !== orgId) throw notFound('Errors.User.NotFound', 'user not found');
    return c.json({ user: toV1User(user, await aggregateSequence(ctx, 'user', user.id)) });
  });

  app.post('/management/v1/users/_search', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/ListUsers');
    const body = await readJson(c);
    const found = await listUsers(ctx, { filters: [{ orgId }, ...toUserFilters(body)], page: pageOf(body) });
    const { details, result } = await searchAnswer(ctx, 'user', found, toV1User);
    return c.json({ details, sortingColumn: 'USER_FIELD_NAME_UNSPECIFIED', result });
  });
  return app;
}
