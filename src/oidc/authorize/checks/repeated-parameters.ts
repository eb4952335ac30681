import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** A parameter sent twice is ambiguous: RFC 6749 §3.1 allows each at most once. */
export const repeatedParameters: AuthorizeCheck = ({ repeated }) => {
  if (repeated.length) throw invalidRequest(`parameter repeated: ${repeated.join(', ')}`);
  return undefined;
};
