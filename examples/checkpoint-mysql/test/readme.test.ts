import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freshPrefix, url } from './support/stores.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = `${root}.tmp/`;

interface Block {
  /** What `<!-- readme-check: … -->` right above the fence asks for, if anything. */
  check: string | undefined;
  code: string;
  line: number;
}

/** The ```ts blocks of the README. */
function tsBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```ts') continue;
    const end = lines.indexOf('```', i + 1);
    const check = /^<!-- readme-check: (\w+) -->$/.exec(lines[i - 1] ?? '')?.[1];
    blocks.push({ check, code: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return blocks;
}

const blocks = tsBlocks(readFileSync(`${root}README.md`, 'utf8'));
const EXCERPT = /^\/\/ ((?:src|test)\/\S+\.ts|vitest\.config\.ts)\n/;

function scratchFile(name: string, code: string): string {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(`${scratch}${name}`, code);
  return `${scratch}${name}`;
}

describe('README', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('has only ts blocks that are excerpts of real files, or are compiled or run here', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks) {
      const excerpt = EXCERPT.exec(block.code);
      if (excerpt === null) {
        expect(['compiles', 'runs'], `block at README line ${block.line}`).toContain(block.check);
        continue;
      }
      const path = excerpt[1]!;
      const source = readFileSync(`${root}${path}`, 'utf8');
      // `// …` marks lines left out: every piece between them must appear in the file as it is.
      for (const piece of block.code.slice(excerpt[0].length).split('\n// …\n')) {
        expect(source.includes(piece), `README line ${block.line}: not in ${path}:\n${piece}`).toBe(true);
      }
    }
  });

  it('the skeleton type-checks against the installed @flow/core', () => {
    const skeleton = blocks.filter((b) => b.check === 'compiles');
    expect(skeleton).toHaveLength(1);
    const file = scratchFile('skeleton.ts', skeleton[0]!.code);
    const config = ts.getParsedCommandLineOfConfigFile(
      `${root}tsconfig.json`,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    const program = ts.createProgram([file], { ...config!.options, noEmit: true, rootDir: scratch });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 30_000);

  it('the usage example runs and prints what its comments say', async () => {
    const usage = blocks.filter((b) => b.check === 'runs');
    expect(usage).toHaveLength(1);
    const code = usage[0]!.code
      .replace("'flow-checkpoint-mysql'", "'../src/index.js'")
      .replace("tablePrefix: 'shop_'", `tablePrefix: '${freshPrefix()}'`);
    const file = scratchFile('usage.ts', code);
    const logs: unknown[] = [];
    vi.spyOn(console, 'log').mockImplementation((value: unknown) => {
      logs.push(value);
    });
    const before = process.env.MYSQL_URL;
    process.env.MYSQL_URL = url;
    try {
      await import(file);
    } finally {
      if (before === undefined) delete process.env.MYSQL_URL;
      else process.env.MYSQL_URL = before;
    }
    expect(logs).toEqual([1, 'step 1 is taken (revision 1)', ['order-42'], 2]);
  });
});
