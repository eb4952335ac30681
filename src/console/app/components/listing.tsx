/** @jsxImportSource react */
import type { ReactNode } from 'react';
import { useState } from 'react';
import { PAGE_SIZE, Pager } from './pager';
import { Failure, Loading } from './status';
import { TextField } from './text-field';

/**
 * What a list page keeps: the search text, the order and the page. Changing a filter goes back to the
 * first page; `pagination` is the list RPC's paging for the current state.
 */
export function useListState() {
  const [search, setSearchText] = useState('');
  const [asc, setAsc] = useState(false);
  const [offset, setOffset] = useState(0);
  const refilter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setOffset(0);
    };
  return {
    search,
    setSearch: refilter(setSearchText),
    refilter,
    offset,
    setOffset,
    sort: { asc, toggle: () => setAsc(!asc) },
    pagination: { offset: BigInt(offset), limit: PAGE_SIZE, asc },
  };
}

export type ListState = ReturnType<typeof useListState>;

/** The search box of a list page. */
export function SearchField(props: { id: string; label: string; list: ListState }) {
  return (
    <TextField
      id={props.id}
      label={props.label}
      type="search"
      value={props.list.search}
      onChange={props.list.setSearch}
    />
  );
}

/** A list RPC's answer: loading, its error, or the table with the pager under it. */
export function ListBody<D>(props: {
  query: { isPending: boolean; error: unknown; data: D | undefined };
  list: ListState;
  total: (data: D) => bigint | undefined;
  children: (data: D) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending) return <Loading />;
  if (query.error || query.data === undefined) return <Failure error={query.error} />;
  return (
    <>
      {props.children(query.data)}
      <Pager offset={props.list.offset} total={Number(props.total(query.data) ?? 0)} onOffset={props.list.setOffset} />
    </>
  );
}
