import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokenLinks, headingAnchor, markdownFiles } from '../src/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The docs pages and the README of every package, tool and example. */
function linkedFiles(): string[] {
  const readmes = ['packages', 'tooling', 'examples'].flatMap((dir) =>
    readdirSync(`${root}${dir}`).map((name) => `${dir}/${name}/README.md`),
  );
  return [
    ...markdownFiles(root, 'docs'),
    'README.md',
    'RELIABILITY.md',
    ...readmes.filter((f) => {
      try {
        readFileSync(`${root}${f}`);
        return true;
      } catch {
        return false;
      }
    }),
  ];
}

describe('links', () => {
  it('turns headings into the anchors GitHub gives them', () => {
    expect(headingAnchor("The engine's rules")).toBe('the-engines-rules');
    expect(headingAnchor('Status: one rule')).toBe('status-one-rule');
    expect(headingAnchor('Leases and workers')).toBe('leases-and-workers');
  });

  it('every relative link in docs/ and the READMEs leads to a file, and to a heading when it names one', () => {
    expect(brokenLinks(root, linkedFiles())).toEqual([]);
  });

  it('docs/README.md links every page of docs/', () => {
    const index = readFileSync(`${root}docs/README.md`, 'utf8');
    const pages = markdownFiles(root, 'docs').filter((f) => f !== 'docs/README.md');
    expect(pages.length).toBeGreaterThanOrEqual(9);
    for (const page of pages) expect(index, page).toContain(`](${page.slice('docs/'.length)}`);
  });
});
