import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** max_age in seconds; nine digits at most, so that it fits the column. */
export const maxAge: AuthorizeCheck = ({ params }) => {
  const raw = params.get('max_age');
  if (raw !== undefined && !/^\d{1,9}$/.test(raw)) throw invalidRequest('max_age must be a non-negative integer');
  return { maxAge: raw === undefined ? null : Number(raw) };
};
