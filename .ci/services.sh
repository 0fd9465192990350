#!/usr/bin/env bash
# Makes sure the local PostgreSQL and Redis answer, starting them with this machine's own commands if not.
# The hosted workflow sets FLOW_CI_SERVICES=given: its servers are health-checked service containers, given to
# the tests as FLOW_TEST_*_URL, and there is nothing to start here.
set -euo pipefail
if [ "${FLOW_CI_SERVICES:-}" = given ]; then echo "servers given by the caller: ${!FLOW_TEST_*}"; exit 0; fi

wait_for() { # name, check command...
  local name=$1; shift
  for _ in $(seq 1 30); do
    if "$@" >/dev/null 2>&1; then echo "$name is up"; return 0; fi
    sleep 1
  done
  echo "$name did not come up" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi
wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping
