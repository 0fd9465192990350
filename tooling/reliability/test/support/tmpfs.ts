import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sleep } from './crash.js';

const run = promisify(execFile);

/** A small file system of the test's own, so it can be filled to the last byte. */
export interface SmallDisk {
  readonly dir: string;
  /** Fills the disk with a file until a 1-byte write fails with ENOSPC; resolves with the bytes written. */
  fill(): number;
  /** Frees what `fill` took. */
  free(): void;
  /** Unmounts and removes the mount point. */
  remove(): Promise<void>;
}

/** Mounting needs root; as another user, `sudo -n` (which fails at once when it would ask a password). */
function privileged(cmd: string, args: string[]) {
  return process.getuid?.() === 0 ? run(cmd, args) : run('sudo', ['-n', cmd, ...args]);
}

/** A `size` tmpfs (`mount -t tmpfs -o size=<size>`) on a fresh temp directory. */
export async function mountSmallDisk(size = '2m'): Promise<SmallDisk> {
  const dir = mkdtempSync(join(tmpdir(), 'flow-rel-full-'));
  try {
    await privileged('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the disk-full test mounts a ${size} tmpfs, which needs root (or sudo): ${error}`);
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      let written = 0;
      try {
        // Big chunks first, then smaller ones: the last page of the disk is taken too.
        for (const size of [256 * 1024, 4096, 64, 1]) {
          const chunk = Buffer.alloc(size, 0x2e);
          try {
            for (;;) written += writeSync(fd, chunk);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free() {
      unlinkSync(filler);
    },
    async remove() {
      for (let attempt = 0; ; attempt++) {
        try {
          await privileged('umount', [dir]);
          break;
        } catch (error) {
          // Busy for a moment while a closed database's handles go away.
          if (attempt >= 20) throw error;
          await sleep(100);
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
