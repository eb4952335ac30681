/** @jsxImportSource react */
import { useQuery } from '@connectrpc/connect-query';
import { useState } from 'react';
import { TextFilterMethod } from '../../../../gen/portcullis/object/v2/object_pb';
import type { User } from '../../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../../gen/portcullis/user/v2/user_service_pb';
import { useWords } from '../context';
import { Field } from './field';
import { TextField } from './text-field';

/** A user's name as lists show it: the display name of a person, else the username. */
export function userName(u: User): string {
  return u.type.case === 'human' ? u.type.value.profile?.displayName || u.username : u.username;
}

/**
 * Picks a user the signed-in person may see: a search (username, display name, email) narrows a select
 * of the first matches. `any` adds an empty choice, for a filter.
 */
export function UserPicker(props: {
  id: string;
  label: string;
  value: string;
  onChange: (userId: string) => void;
  any?: boolean;
  error?: string;
}) {
  const t = useWords();
  const [search, setSearch] = useState('');
  const text = { value: search, method: TextFilterMethod.CONTAINS_IGNORE_CASE };
  const users = useQuery(UserService.method.listUsers, {
    pagination: { limit: 20 },
    filters: search
      ? [
          {
            filter: {
              case: 'orFilter',
              value: {
                filters: [
                  { filter: { case: 'usernameFilter', value: text } },
                  { filter: { case: 'displayNameFilter', value: text } },
                  { filter: { case: 'emailFilter', value: text } },
                ],
              },
            },
          },
        ]
      : [],
  });
  const found = users.data?.result ?? [];
  return (
    <>
      <TextField id={`${props.id}-search`} label={t.findUser} type="search" value={search} onChange={setSearch} />
      <Field id={props.id} label={props.label} error={props.error}>
        <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
          <option value="">{props.any ? t.any : t.choose}</option>
          {found.map((u) => (
            <option key={u.userId} value={u.userId}>
              {userName(u)} ({u.preferredLoginName})
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

/** The names of the users with these ids, for a list's user column. */
export function useUserNames(ids: string[]): Map<string, string> {
  const userIds = [...new Set(ids)].sort();
  const users = useQuery(
    UserService.method.listUsers,
    { pagination: { limit: 1000 }, filters: [{ filter: { case: 'inUserIdsFilter', value: { userIds } } }] },
    { enabled: userIds.length > 0 },
  );
  return new Map((users.data?.result ?? []).map((u) => [u.userId, userName(u)]));
}
