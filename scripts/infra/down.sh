#!/usr/bin/env bash
# Stops the local Kafka, PostgreSQL and Redis started by up.sh. Data stays in $INFRA_DIR.
source "$(dirname "$0")/common.sh"
here="$(dirname "$0")"
bash "$here/kafka.sh" down
bash "$here/postgres.sh" down
bash "$here/redis.sh" down
