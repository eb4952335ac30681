/** @jsxImportSource react */
import { useWords } from '../context';

export const PAGE_SIZE = 20;

/** Previous / next over a list RPC's offset paging, with where the page stands in the total. */
export function Pager(props: { offset: number; total: number; onOffset: (offset: number) => void }) {
  const t = useWords();
  const { offset, total } = props;
  const last = Math.min(offset + PAGE_SIZE, total);
  // an empty list says so itself (DataTable); there is nothing to page through
  if (total === 0 && offset === 0) return null;
  return (
    <div className="pager">
      <button type="button" disabled={offset === 0} onClick={() => props.onOffset(Math.max(0, offset - PAGE_SIZE))}>
        {t.previous}
      </button>
      <span aria-live="polite">{total === 0 ? t.none : t.range(offset + 1, last, total)}</span>
      <button type="button" disabled={last >= total} onClick={() => props.onOffset(offset + PAGE_SIZE)}>
        {t.next}
      </button>
    </div>
  );
}
