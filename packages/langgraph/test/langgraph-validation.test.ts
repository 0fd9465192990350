// LangGraph.js's own conformance suite for checkpoint savers, unmodified, through its `validate()` entry point
// (its command line is broken in 1.1.1), plus its opt-in delta-channel suite, on every @flow backend.
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

for (const backend of allBackends()) {
  const initializer = {
    checkpointerName: `FlowSaver on ${backend.name}`,
    createCheckpointer: async () => new FlowSaver((await backend.create()).store),
    destroyCheckpointer: async (saver: FlowSaver) => saver.checkpointer.close(),
  };
  validate(initializer);
  deltaChannelHistoryTests(initializer);
}
