#!/usr/bin/env bash
# CI for the MySQL plugin, run from the repo's .ci/run after `pnpm build`: make sure a MySQL/MariaDB server
# answers, install the packed @flow packages with plain npm, type-check, build, and run the whole
# conformance kit plus the plugin's own tests.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

# The server (found the way @flow/test-db finds its servers): FLOW_TEST_MYSQL_URL when set — the tests then use it or fail saying
# so —, else the local port, starting this machine's MariaDB when it does not answer.
if [ -z "${FLOW_TEST_MYSQL_URL:-}" ]; then
  ping_local() { mariadb-admin --host=127.0.0.1 --port=3306 --user=root ping >/dev/null 2>&1; }
  if ! ping_local; then
    if [ -x /usr/sbin/mariadbd ]; then
      echo "starting MariaDB"
      start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
      for _ in $(seq 1 30); do ping_local && break; sleep 1; done
    fi
    # Still down: the tests' global setup fails with a message that says how to provide a server.
    ping_local && echo "MariaDB is up" || echo "no MySQL/MariaDB answers on 127.0.0.1:3306" >&2
  fi
fi

bash "$here/scripts/install-packed.sh"
cd "$here"
npm run --silent typecheck
npm run --silent build
npx vitest run
# The packed `flow` command on a mysql:// store, as a user types it: the CLI finds this plugin's store factory
# by the package's name (test/flow-cli.test.ts, above, checks listings of a populated store).
url="${FLOW_TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
case "$url" in *\?*) sep='&' ;; *) sep='?' ;; esac
store="${url}${sep}tablePrefix=ci_cli_$$_"
npx --no-install flow setup --store "$store"
test "$(npx --no-install flow threads --store "$store")" = "no threads"
node --input-type=module -e "const m = await import('mysql2/promise'); const c = await m.createConnection(process.argv[1]);
  for (const t of ['checkpoints', 'threads', 'writes', 'leases', 'chunks', 'migrations']) await c.query('DROP TABLE IF EXISTS ci_cli_$$_' + t);
  await c.end();" "$url"
echo "flow threads --store mysql://… ok"
