import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '@memstream/config';
import { setupEnv } from '@memstream/setup';

test('the setup job refuses to start without a broker or a database, naming each', () => {
  assert.throws(
    () => loadConfig(setupEnv, {}),
    (err: unknown) =>
      err instanceof ConfigError && /KAFKA_BROKERS/.test(err.message) && /DATABASE_URL/.test(err.message),
  );
  assert.throws(() => loadConfig(setupEnv, { KAFKA_BROKERS: ' , ', DATABASE_URL: 'postgres://db/m' }), /KAFKA_BROKERS/);
});

test('the setup job reads the topic plan every service shares', () => {
  const config = loadConfig(setupEnv, {
    KAFKA_BROKERS: 'a:9092,b:9092',
    DATABASE_URL: 'postgres://db/m',
    KAFKA_TOPIC_PARTITIONS: '24',
  });
  assert.deepEqual(config.KAFKA_BROKERS, ['a:9092', 'b:9092']);
  assert.equal(config.KAFKA_TOPIC_PARTITIONS, 24);
  assert.equal(config.KAFKA_REPLICATION_FACTOR, undefined, 'unset: the topics follow the brokers the cluster has');
});
