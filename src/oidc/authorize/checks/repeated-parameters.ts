import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** Parameters that may repeat: RFC 8707 `resource` names one resource per value. */
const REPEATABLE = ['resource'];

/** A parameter sent twice is ambiguous: RFC 6749 §3.1 allows each at most once. */
export const repeatedParameters: AuthorizeCheck = ({ repeated }) => {
  const wrong = repeated.filter((name) => !REPEATABLE.includes(name));
  if (wrong.length) throw invalidRequest(`parameter repeated: ${wrong.join(', ')}`);
  return undefined;
};
