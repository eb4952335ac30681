import { type PaginationRequest, TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import type { ListResult, PageRequest } from '../../domain/list/page';
import type { TextMethod } from '../../domain/list/text-filter';

/** The v2 side of the list toolkit (src/domain/list): paging in, list details out, text methods in. */

export function pageIn(p: PaginationRequest | undefined): PageRequest {
  return { offset: p?.offset ?? 0n, limit: p?.limit ?? 0, asc: p?.asc ?? false };
}

export function pageOut(r: Pick<ListResult<unknown>, 'total' | 'appliedLimit'>) {
  return { totalResult: BigInt(r.total), appliedLimit: BigInt(r.appliedLimit) };
}

const METHODS: Record<TextFilterMethod, TextMethod> = {
  [TextFilterMethod.EQUALS_UNSPECIFIED]: 'equals',
  [TextFilterMethod.EQUALS_IGNORE_CASE]: 'equals_ignore_case',
  [TextFilterMethod.STARTS_WITH]: 'starts_with',
  [TextFilterMethod.STARTS_WITH_IGNORE_CASE]: 'starts_with_ignore_case',
  [TextFilterMethod.CONTAINS]: 'contains',
  [TextFilterMethod.CONTAINS_IGNORE_CASE]: 'contains_ignore_case',
};

/** The domain's text method for a v2 one; undefined for a number the enum does not know. */
export function textMethodIn(m: TextFilterMethod): TextMethod | undefined {
  return METHODS[m];
}
