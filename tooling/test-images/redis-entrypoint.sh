#!/bin/sh
# The part of the official redis image's entry point that tooling relies on: `redis-server [args]` (or only
# args) runs the server in the foreground on every interface with protected mode off, so the published port
# answers. In the valkey image SERVER is valkey-server, and `redis-server` still starts it, as clients of
# the redis image expect.
set -eu

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
case "$1" in
  redis-server | valkey-server)
    shift
    exec "$SERVER" --bind 0.0.0.0 --protected-mode no --dir /data "$@"
    ;;
esac
exec "$@"
