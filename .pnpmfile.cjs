// Native builds (better-sqlite3 where no prebuilt binary can be downloaded) compile against the headers of
// the Node.js that runs pnpm when that installation ships them, so node-gyp never has to download them.
// pnpm does not pass `nodedir` from .npmrc to build scripts, hence this hook; an npm_config_nodedir the
// user exported still wins.
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** The Node.js installation prefix whose include/node headers are this very version, if there is one. */
function installedHeaders() {
  const prefix = dirname(dirname(process.execPath));
  const versionH = join(prefix, 'include', 'node', 'node_version.h');
  if (!existsSync(versionH)) return undefined;
  const text = readFileSync(versionH, 'utf8');
  const part = (name) => text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
  const version = `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
  return version === process.version ? prefix : undefined;
}

module.exports = {
  hooks: {
    updateConfig(config) {
      if (process.env.npm_config_nodedir) return config;
      const nodedir = installedHeaders();
      if (nodedir === undefined) return config;
      return { ...config, extraEnv: { ...config.extraEnv, npm_config_nodedir: nodedir } };
    },
  },
};
