/**
 * How a child process opens a checkpointer on the same storage as the parent's: an ES module that a plain
 * `node` can import (built JavaScript, not TypeScript source), the name of an export, and JSON arguments.
 * An exported class is called with `new`, a function (sync or async) is called as is; either returns the
 * checkpointer.
 *
 * @example
 * // In the backend's test file: the child runs `new SqliteCheckpointer(path)` from the built package.
 * const opener: ChildOpener = {
 *   module: new URL('../dist/index.js', import.meta.url),
 *   export: 'SqliteCheckpointer',
 *   args: ['/tmp/kit-1234/flow.db'],
 * };
 */
export interface ChildOpener {
  /** Absolute path or `file:` URL of the module. A bare name would resolve from the kit's own folder. */
  module: string | URL;
  /** The exported class or factory function. */
  export: string;
  /** Arguments of the constructor or factory; JSON values only (they cross a process boundary). @default [] */
  args?: readonly unknown[];
}

/**
 * A function a child runs once its checkpointer is open: `(checkpointer, params, { index, pid })`, exported by
 * an ES module that a plain `node` can import. It resolves with JSON that goes back to the parent.
 */
export interface ChildTask {
  /** Absolute path or `file:` URL of the module. */
  module: string | URL;
  /** The exported function. */
  export: string;
}
