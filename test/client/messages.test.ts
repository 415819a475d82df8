import { describe, expect, it } from 'vitest';
import { describeError } from '../../client/messages.js';
import { HttpStatusError } from '../../protocol/errors/errors.js';
import { createKnownError } from '../../protocol/errors/create.js';

describe('describeError', () => {
  it('shows a plain 4xx sentence from the service as it is', () => {
    expect(describeError(new HttpStatusError(400, 'Contact channel already exists'))).toBe(
      'Contact channel already exists',
    );
  });

  it('never shows 5xx bodies, JSON, or multi-line texts', () => {
    const generic = 'The service could not handle this request. Please try again in a moment.';
    expect(describeError(new HttpStatusError(500, 'Internal Server Error. The error message follows'))).toBe(generic);
    expect(describeError(new HttpStatusError(400, '{"error":"invalid_request"}'))).toBe(generic);
    expect(
      describeError(new HttpStatusError(404, "404 — this page does not exist in Stack Auth's API.\n\nURL: x")),
    ).toBe(generic);
  });

  it('covers both meanings of PASSWORD_CONFIRMATION_MISMATCH', () => {
    expect(describeError(createKnownError('PASSWORD_CONFIRMATION_MISMATCH'))).toMatch(
      /current password.*typed the same twice/,
    );
  });
});
