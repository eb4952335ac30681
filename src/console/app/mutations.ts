import type { DescMessage, DescMethodUnary } from '@bufbuild/protobuf';
import { useMutation } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

/**
 * A change through the API after which every list shows the new state: each success empties the query
 * cache (the lists are small pages; refetching them is cheaper than knowing which one changed).
 */
export function useChange<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  onDone?: () => void,
) {
  const queries = useQueryClient();
  return useMutation(method, {
    onSuccess: () => {
      onDone?.();
      void queries.invalidateQueries();
    },
  });
}
