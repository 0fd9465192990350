import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeProcessRaces } from '../../src/index.js';
import { JsonFileCheckpointer } from './json-file-checkpointer.mjs';

type JsonFile = InstanceType<typeof JsonFileCheckpointer>;

/** The process races against the one-JSON-file reference backend, correct or with its lock dropped. */
export function describeProcessRacesOnJsonFile(bug?: 'no-lock'): void {
  describeProcessRaces<JsonFile>(bug ?? 'correct', {
    create: async () =>
      new JsonFileCheckpointer(join(mkdtempSync(join(tmpdir(), 'kit-json-')), 'store.json'), { bug }),
    cleanup: async (cp) => rmSync(dirname(cp.path), { recursive: true, force: true }),
    openInChild: (cp) => ({
      module: new URL('./json-file-checkpointer.mjs', import.meta.url),
      export: 'JsonFileCheckpointer',
      args: [cp.path, { bug }],
    }),
  });
}
