// One child process of a `ChildPool` (src/process/child-pool.ts). It waits for commands on stdin, one
// JSON line each, and answers each on stdout:
//   { op: 'open', opener }      opens a checkpointer the way the harness's openInChild says, and sets it up
//   { op: 'run', task, params } runs a task on it: task(checkpointer, params, { index, pid })
//   { op: 'close' }             closes it
// The parent opens every child first and sends `run` to all of them once all are open, so they start
// together. Plain JavaScript on purpose: a plain `node` runs it, with no build step, and it never imports
// vitest. Answers go behind MARK, so stray output of a backend is ignored.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const MARK = '@flow-kit-child ';
const index = Number(process.argv[2]);

/** An absolute path or a file: URL becomes an importable URL; anything else is imported as given. */
function importable(specifier) {
  if (specifier.startsWith('file:')) return specifier;
  if (specifier.startsWith('/') || /^[A-Za-z]:[\\/]/.test(specifier)) return pathToFileURL(specifier).href;
  return specifier;
}

async function load(ref, what) {
  let mod;
  try {
    mod = await import(importable(ref.module));
  } catch (error) {
    // The usual cause: a TypeScript source or a bare name where the kit needs built JavaScript by path.
    throw new Error(
      `${what}: could not import ${ref.module} (${error?.message ?? error}). The module must be JavaScript ` +
        'that a plain `node` runs, given as an absolute path or a file: URL: point it at your build output ' +
        "(new URL('../dist/index.js', import.meta.url)) and build before testing",
      { cause: error },
    );
  }
  const value = mod[ref.export];
  if (typeof value !== 'function') {
    throw new Error(
      `${what}: ${ref.module} exports no function or class named ${JSON.stringify(ref.export)}`,
    );
  }
  return value;
}

/** Classes are called with `new`, factories (sync or async) without. */
function isClass(fn) {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

function describeError(error) {
  if (error instanceof Error)
    return { name: error.name, code: error.code, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

let checkpointer;
async function closeCheckpointer() {
  const open = checkpointer;
  checkpointer = undefined;
  await open?.close();
}

const commands = {
  async open({ opener }) {
    await closeCheckpointer();
    const make = await load(opener, 'openInChild');
    const args = opener.args ?? [];
    checkpointer = isClass(make) ? new make(...args) : await make(...args);
    await checkpointer.setup();
    return null;
  },
  async run({ task, params }) {
    if (checkpointer === undefined) throw new Error('run before open');
    return (await load(task, 'task'))(checkpointer, params, { index, pid: process.pid });
  },
  async close() {
    await closeCheckpointer();
    return null;
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  const { id, op, ...args } = JSON.parse(line);
  let answer;
  try {
    answer = { id, result: (await commands[op](args)) ?? null };
  } catch (error) {
    answer = { id, error: describeError(error) };
  }
  process.stdout.write(`${MARK}${JSON.stringify(answer)}\n`);
}
await closeCheckpointer().catch(() => {});
