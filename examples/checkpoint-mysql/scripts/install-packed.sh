#!/usr/bin/env bash
# Installs this package's dependencies the way a project outside the @flow monorepo gets them: @flow/core and
# @flow/checkpoint-conformance (and @flow/cli, whose `flow` command the tests run on a mysql:// store) exactly as `pnpm pack` makes them (what a publish would upload: the `files`
# list, workspace ranges rewritten to versions), unpacked into .packed/ and copied into node_modules by plain
# npm (`install-links=true` in .npmrc: copies, not symlinks); mysql2, vitest and typescript from the registry,
# as package-lock.json pins them. No workspace links.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"

# The tarballs hold dist/: build it (a turbo cache hit after `pnpm build`).
(cd "$repo" && pnpm exec turbo run build --filter=@flow/core --filter=@flow/checkpoint-conformance --filter=@flow/cli \
  --output-logs=errors-only)

rm -rf "$here/.packed"
mkdir -p "$here/.packed"
for pkg in core checkpoint-conformance cli; do
  tarball="$(cd "$repo/packages/$pkg" && pnpm pack --pack-destination "$here/.packed" | tail -n 1)"
  # Unpacked under a fixed name (no version), so package.json and package-lock.json never change with it.
  mkdir -p "$here/.packed/flow-$pkg"
  tar -xzf "$tarball" -C "$here/.packed/flow-$pkg" --strip-components=1
  rm "$tarball"
done

cd "$here"
# npm keeps an installed file: dependency when its version is unchanged; drop them so the new build lands.
rm -rf node_modules/@flow
npm install --no-audit --no-fund
