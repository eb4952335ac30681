import { type Timestamp, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type PaginationRequest, TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import type { ListResult, PageRequest, TextMethod } from '../../domain/instance/pagination';

/** Conversions every v2 list and mutation of the resource services shares. */
export function pageIn(p: PaginationRequest | undefined): PageRequest {
  return { offset: p?.offset ?? 0n, limit: p?.limit ?? 0, asc: p?.asc ?? false };
}

export function pageOut(r: ListResult<unknown>) {
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

export function textMethod(m: TextFilterMethod): TextMethod {
  return METHODS[m] ?? 'equals';
}

export function ts(d: Date): Timestamp {
  return timestampFromDate(d);
}
