export { type BlockFile, writeBlocks } from './block-files.js';
export { type CodeBlock, docsBlocks, extractTsBlocks, markdownFiles } from './extract-blocks.js';
export { type BlockRun, runBlock } from './run-block.js';
export { typeCheck } from './type-check.js';
