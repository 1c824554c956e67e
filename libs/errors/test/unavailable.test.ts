import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, inCauseChain, isRetriable, isUnavailable } from '@memstream/errors';

test('a dependency that went away is unavailable however deep the driver wrapped it', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  assert.equal(isUnavailable(refused), true);
  assert.equal(isUnavailable(new AppError('DEPENDENCY_UNAVAILABLE', 'down')), true);
  assert.equal(
    isUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    true,
  );
  assert.equal(isUnavailable(new Error('Connection terminated unexpectedly')), true);
  const kafka = Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' });
  const wrapped = Object.assign(new Error('retries exhausted'), { name: 'KafkaJSNonRetriableError', cause: kafka });
  assert.equal(isUnavailable(wrapped), true);
  assert.equal(isRetriable(wrapped), true, 'an unavailable dependency is always worth another try');
});

test('a write that reached a demoted primary (a standby now) waits for the failover, like an outage', () => {
  const readOnly = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' });
  assert.equal(isUnavailable(readOnly), true);
  assert.equal(isUnavailable(new AppError('HANDLER_ERROR', 'store failed', { cause: readOnly })), true);
  assert.equal(isRetriable(readOnly), true);
});

test('failures of the work itself are not unavailability', () => {
  assert.equal(isUnavailable(new AppError('INVALID_EVENT', 'bad')), false);
  assert.equal(isUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
  assert.equal(isUnavailable(new TypeError('x is undefined')), false);
  assert.equal(isUnavailable(Object.assign(new Error('deadlock detected'), { code: '40P01' })), false);
  assert.equal(
    isRetriable(Object.assign(new Error('deadlock detected'), { code: '40P01' })),
    true,
    'retried, but a few times only',
  );
  assert.equal(isUnavailable(null), false);
});

test("the cause chain is walked through kafkajs's originalError too, and a chain that loops ends", () => {
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const retries = Object.assign(new Error('gave up'), { name: 'KafkaJSNonRetriableError', originalError: reset });
  assert.equal(isUnavailable(new AppError('HANDLER_ERROR', 'failed', { cause: retries })), true);
  const looping: { cause?: unknown } & Error = new Error('wraps itself');
  looping.cause = looping;
  assert.equal(isUnavailable(looping), false);
  assert.equal(
    inCauseChain(looping, (e) => e.message === 'never'),
    false,
  );
});
