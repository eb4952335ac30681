/**
 * The error key a rule throws with. Each area keeps the key its API has always returned
 * (`Errors.User.Invalid` for users, `Errors.Invalid.<field>` for organizations and projects,
 * `Errors.IdMissing` / `Errors.IdInvalid` for application ids), so the rules are shared while the
 * keys callers match on stay as they were. `missing` is a value left out, `invalid` any other refusal.
 */
export type KeyOf = (field: string, problem: 'missing' | 'invalid') => string;
