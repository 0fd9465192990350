#!/usr/bin/env bash
# Makes sure a Docker engine answers, for the version matrix and the test tooling's container path:
# installs docker.io and debootstrap when missing and starts dockerd when it is not running. There is no
# image registry here: tooling/test-images builds every image from Debian's packages.
set -euo pipefail

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "starting dockerd"
  # Published ports default to 127.0.0.1: nothing a test starts is reachable from outside the machine.
  nohup dockerd --ip=127.0.0.1 >/var/log/flow-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
fi
if ! docker info >/dev/null 2>&1; then
  echo "dockerd did not come up:" >&2
  tail -n 20 /var/log/flow-dockerd.log >&2 || true
  exit 1
fi
echo "Docker $(docker version -f '{{.Server.Version}}') is up"
