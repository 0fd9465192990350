#!/bin/sh
# The part of the official postgres image's entry point that tooling relies on: on first start, initdb with
# POSTGRES_USER / POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust) and create POSTGRES_DB; then run
# the server on every interface. Runs as the postgres user (the image's USER).
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
shift
# Questions to the binary (--version, --help, -C setting) need no cluster.
for arg in "$@"; do
  case "$arg" in -V | --version | -'?' | --help | --describe-config | -C) exec postgres "$@" ;; esac
done

: "${PGDATA:=/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
auth="${POSTGRES_HOST_AUTH_METHOD:-md5}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'error: set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust)' >&2
    exit 1
  fi
  mkdir -p "$PGDATA"
  chmod 0700 "$PGDATA"
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  # md5 in pg_hba also accepts SCRAM-stored passwords, so one method serves every major version.
  initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host="$auth" >/dev/null
  rm -f "$pwfile"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    quoted=$(printf '%s' "$db" | sed 's/"/""/g')
    echo "CREATE DATABASE \"$quoted\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
