import { chmod, constants, type FileHandle, mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Mode of every directory the checkpointer creates. */
export const DIR_MODE = 0o700;
/** Mode of every file the checkpointer creates. */
export const FILE_MODE = 0o600;

/** Error codes a caller may meet on any file system; used to tell "absent" from a real failure. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  return (
    typeof error === 'object' && error !== null && codes.includes((error as { code?: string }).code ?? '')
  );
}

/**
 * Creates one directory `0o700`, chmod-ing it explicitly since the umask may have removed bits.
 * Resolves `true` when it created it, `false` when it already existed (its mode is then left alone).
 */
export async function mkdirPrivate(path: string): Promise<boolean> {
  try {
    await mkdir(path, { mode: DIR_MODE });
  } catch (error) {
    if (hasCode(error, 'EEXIST')) return false;
    throw error;
  }
  await chmod(path, DIR_MODE);
  return true;
}

/**
 * Creates the root as `mkdir -p` would: missing parents with the default mode, the root itself `0o700`.
 * An existing root keeps its mode. Resolves `true` when the root was created.
 */
export async function ensureRoot(root: string): Promise<boolean> {
  await mkdir(dirname(root), { recursive: true });
  const created = await mkdirPrivate(root);
  if (created) await syncDir(dirname(root));
  return created;
}

/**
 * Creates a new file (failing with `EEXIST` when one is there) `0o600`, writes `bytes` in one go and,
 * with `durable`, fsyncs it. A failed write removes the half-written file.
 */
export async function writeNewFile(path: string, bytes: Uint8Array, durable: boolean): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
  try {
    await fh.chmod(FILE_MODE);
    await fh.writeFile(bytes);
    if (durable) await fh.sync();
  } catch (error) {
    await fh.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw error;
  }
  await fh.close();
}

/** fsyncs a directory so the entries created, renamed or removed in it survive a power loss. */
export async function syncDir(path: string): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY);
  } catch (error) {
    // Some platforms cannot open a directory for reading; there is nothing to sync with then.
    if (hasCode(error, 'EISDIR', 'EPERM', 'EACCES')) return;
    throw error;
  }
  try {
    await fh.sync();
  } catch (error) {
    if (!hasCode(error, 'EINVAL', 'EPERM', 'EBADF', 'ENOTSUP')) throw error;
  } finally {
    await fh.close();
  }
}

/** Removes a file, ignoring one that is already gone. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!hasCode(error, 'ENOENT')) throw error;
  }
}
