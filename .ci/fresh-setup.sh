#!/usr/bin/env bash
# The README's set-up command, as typed, in a fresh clone and a clean environment: no npm_config_nodedir
# or any other variable a developer would have to know about. The pnpm store is warm, so better-sqlite3's
# build comes from its cache; the rebuild after it compiles from source, as on a machine that has never
# built it and cannot download a prebuilt binary.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/flow"
cd "$work/flow"
clean=(env -i "HOME=$HOME" "PATH=$PATH" "CI=true")
"${clean[@]}" bash -c 'npm install -g pnpm@12.4.2 && pnpm install && pnpm demo' </dev/null
"${clean[@]}" pnpm rebuild better-sqlite3
"${clean[@]}" pnpm demo </dev/null >/dev/null
echo "fresh clone: set-up and demo ran with no extra environment"
