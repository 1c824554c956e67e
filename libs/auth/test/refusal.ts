import assert from 'node:assert/strict';
import { AppError, type ErrorCode } from '@memstream/errors';

/**
 * Asserts the attempt fails with our own error of this code. Checking the class as well as the
 * code matters: a jose error leaking out unmapped would be answered 500 by the HTTP layer.
 */
export async function refusedWith(code: ErrorCode, attempt: Promise<unknown>): Promise<AppError> {
  let caught: unknown;
  await assert.rejects(attempt, (err) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof AppError, `expected an AppError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}
