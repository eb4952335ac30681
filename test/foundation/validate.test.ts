import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors';
import { requireDomain } from '../../src/domain/validate/domain-name';
import { parseDuration } from '../../src/domain/validate/duration';
import { isEmailAddress } from '../../src/domain/validate/email';
import { isResourceId, optionalResourceId, requireRefId, USER_ID } from '../../src/domain/validate/id';
import type { KeyOf } from '../../src/domain/validate/key';
import { optionalFreeText, requireText } from '../../src/domain/validate/text';
import { httpUrl, parseUrl } from '../../src/domain/validate/url';
import { requireUsername } from '../../src/domain/validate/username';

const key: KeyOf = (field, problem) => `Errors.Test.${field}.${problem}`;

/** The refusal of `fn`: its key and message (every message names the field). */
function refusal(fn: () => unknown): { key: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return { key: e.key, message: e.message };
    throw e;
  }
  throw new Error('accepted');
}

describe('the shared validation rules', () => {
  it('text: trimmed, required, bounded, no control characters; free text keeps line breaks', () => {
    expect(requireText(key, 'name', '  Ann ')).toBe('Ann');
    expect(refusal(() => requireText(key, 'name', '  '))).toMatchObject({
      key: 'Errors.Test.name.missing',
      message: expect.stringMatching(/name is required/),
    });
    expect(refusal(() => requireText(key, 'name', 'x'.repeat(201))).message).toMatch(
      /name must be at most 200 characters/,
    );
    for (const bad of ['a\u0000b', 'a\nb', 'a\tb', 'a\u001bb', 'a\u007fb']) {
      expect(
        refusal(() => requireText(key, 'name', bad)),
        JSON.stringify(bad),
      ).toMatchObject({
        key: 'Errors.Test.name.invalid',
        message: expect.stringMatching(/name must not contain control characters/),
      });
    }
    expect(optionalFreeText(key, 'description', 'line 1\r\n\tline 2')).toBe('line 1\r\n\tline 2');
    expect(optionalFreeText(key, 'description', '')).toBe('');
    expect(optionalFreeText(key, 'description', undefined)).toBeUndefined();
    expect(refusal(() => optionalFreeText(key, 'description', 'a\u0000b')).message).toMatch(
      /description must not contain control characters/,
    );
  });

  it('ids: resource ids without @ or ., user ids with them, referenced ids only bounded', () => {
    for (const ok of ['abc', 'A-1_b', 'x'.repeat(200)]) expect(isResourceId(ok), ok).toBe(true);
    for (const bad of ['', 'a.b', 'a@b', 'a b', 'x'.repeat(201), 'a\u0000']) expect(isResourceId(bad), bad).toBe(false);
    expect(optionalResourceId(key, 'project_id', '')).toBeUndefined();
    expect(refusal(() => optionalResourceId(key, 'project_id', 'a@b')).message).toMatch(/project_id may only contain/);
    for (const ok of ['u1', 'ann@example.com', 'a.b-c_d']) expect(USER_ID.test(ok), ok).toBe(true);
    for (const bad of ['a b', 'a/b', 'a\u0000']) expect(USER_ID.test(bad), bad).toBe(false);
    expect(requireRefId(key, 'org_id', 'anything.at@all')).toBe('anything.at@all');
    expect(refusal(() => requireRefId(key, 'org_id', '')).key).toBe('Errors.Test.org_id.missing');
    expect(refusal(() => requireRefId(key, 'org_id', 'x'.repeat(201))).key).toBe('Errors.Test.org_id.invalid');
  });

  it('email: one rule, dotless hosts accepted, control characters and spaces refused', () => {
    for (const ok of ['ann@example.com', 'admin@localhost', 'a.b+c@sub.example.co', 'x@a-b.example'])
      expect(isEmailAddress(ok), ok).toBe(true);
    for (const bad of [
      'not-an-email',
      'a b@example.com',
      'a@-bad-.example',
      'a@@b',
      '"q"@example.com',
      '<a>@example.com',
      'a\u0000@example.com',
      'a\u0001b@example.com',
      'a@example.com\n',
      `${'x'.repeat(190)}@example.com`,
    ]) {
      expect(isEmailAddress(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('username: text without whitespace; an email address is one', () => {
    expect(requireUsername(key, 'username', ' ann@example.com ')).toBe('ann@example.com');
    expect(refusal(() => requireUsername(key, 'username', 'ann smith')).message).toMatch(
      /username must not contain whitespace/,
    );
    expect(refusal(() => requireUsername(key, 'username', 'ann\u0000')).message).toMatch(
      /username must not contain control characters/,
    );
  });

  it('domain names: lower-cased labels, no scheme or port', () => {
    expect(requireDomain(key, 'domain', ' Example.COM ')).toBe('example.com');
    expect(requireDomain(key, 'domain', 'localhost')).toBe('localhost');
    for (const bad of ['https://example.com', 'example.com:443', '-a.example', 'a..b', 'a_b.example']) {
      expect(refusal(() => requireDomain(key, 'domain', bad)).message, bad).toMatch(/domain must be a domain name/);
    }
  });

  it('URLs: absolute ones parse; http(s) ones need a host', () => {
    expect(parseUrl('com.example.app:/callback')?.protocol).toBe('com.example.app:');
    expect(parseUrl('/relative')).toBeUndefined();
    expect(httpUrl('https://example.com/x')?.hostname).toBe('example.com');
    expect(httpUrl('http://localhost:8080')?.port).toBe('8080');
    for (const bad of ['ftp://example.com', 'javascript:alert(1)', 'file:///etc/passwd', 'not a url'])
      expect(httpUrl(bad), bad).toBeUndefined();
  });

  it('durations: every Go unit, combined terms, fractions; a bare number is seconds', () => {
    const cases: [string, number][] = [
      ['10ns', 1e-5],
      ['250us', 0.25],
      ['250µs', 0.25], // U+00B5 micro sign
      ['250μs', 0.25], // U+03BC Greek mu
      ['1500ms', 1500],
      ['90s', 90_000],
      ['2m', 120_000],
      ['720h', 2_592_000_000],
      ['1h30m', 5_400_000],
      ['5m0s', 300_000],
      ['1.5h', 5_400_000],
      ['.5s', 500],
      ['0', 0],
      ['90', 90_000],
    ];
    for (const [raw, ms] of cases) expect(parseDuration(raw), raw).toBeCloseTo(ms, 9);
    for (const bad of ['', 'soon', '5 m', '1h 30m', 's', '.s', '1d', '-1s', '+1s', '1.2.3s', '5m0', 'm5', '1.5']) {
      expect(parseDuration(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
