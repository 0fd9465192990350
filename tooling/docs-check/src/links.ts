import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** A relative link of a markdown file that leads nowhere. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

const LINK = /\]\(([^)\s]+)\)/g;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(headingAnchor(heading[1]!.replace(/`/g, '')));
  }
  return anchors;
}

/**
 * The relative links of `files` (paths relative to `root`) whose file does not exist, or whose `#anchor` is
 * no heading of the markdown file it names. Links with a scheme (`https:`) and code blocks are left alone.
 */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    let inFence = false;
    text.split('\n').forEach((line, i) => {
      if (/^(`{3,}|~{3,})/.test(line)) inFence = !inFence;
      if (inFence) return;
      for (const [, target] of line.matchAll(LINK)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
        const where = { file, line: i + 1, target: target! };
        if (!existsSync(resolved)) {
          broken.push({ ...where, reason: `no such file: ${relative(root, resolved)}` });
          continue;
        }
        if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
        if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push({ ...where, reason: `no heading #${anchor} in ${relative(root, resolved)}` });
        }
      }
    });
  }
  return broken;
}
