import { CorruptCheckpointError } from '@flow/core';

/** A damaged file of this backend, named by its path. */
export function corrupt(path: string, detail: string, cause?: unknown): CorruptCheckpointError {
  return new CorruptCheckpointError(path, detail, { backend: 'file', cause });
}

/**
 * The header of a step or chunk file: the JSON object before the first `mark` (a `,"field":` Buffer). Inside a
 * JSON string every `"` follows a `\`, so that first match is the header's end. Resolves with the parsed
 * header (unchecked: the caller checks its fields) and the offset just after `mark`.
 *
 * @throws CorruptCheckpointError naming `path` when there is no `mark` (`missing` says what the file is not)
 *   or the header is not JSON
 */
export function parseFileHeader(buf: Buffer, mark: Buffer, path: string, missing: string): [unknown, number] {
  const at = buf.indexOf(mark);
  if (at < 0) throw corrupt(path, missing);
  try {
    return [JSON.parse(`${buf.toString('utf8', 0, at)}}`), at + mark.length];
  } catch (error) {
    throw corrupt(path, `unreadable header: ${(error as Error).message}`, error);
  }
}
