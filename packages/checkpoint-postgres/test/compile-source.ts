import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Transpiles src/*.ts to plain JavaScript once, for child processes that must run this package's source
 * without a build. The output sits inside the package (under node_modules/.cache), so `pg` and `@flow/core`
 * resolve as they do for src. Resolves with the directory and a function that removes it.
 */
export async function compileSource(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = join(packageDir, 'node_modules', '.cache', `flow-pg-src-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  const srcDir = join(packageDir, 'src');
  for (const file of await readdir(srcDir)) {
    if (!file.endsWith('.ts')) continue;
    const source = await readFile(join(srcDir, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: file,
    });
    await writeFile(join(dir, file.replace(/\.ts$/, '.js')), outputText);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
