export { type BlockFile, writeBlocks } from './block-files.js';
export {
  type CodeBlock,
  docsBlocks,
  extractTsBlocks,
  markdownFiles,
  RUN_MARK,
  readmeBlocks,
} from './extract-blocks.js';
export { type BrokenLink, brokenLinks, headingAnchor } from './links.js';
export { printsKept, promisedPrints } from './prints.js';
export { type BlockRun, runBlock } from './run-block.js';
export { typeCheck } from './type-check.js';
