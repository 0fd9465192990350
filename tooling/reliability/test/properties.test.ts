import { describeProperties } from './support/property-suite.js';
import { ALL_BACKENDS } from './support/stores.js';

// fast-check over thread ids, states and arguments, on every backend (see support/property-suite.ts).
for (const backend of ALL_BACKENDS) describeProperties(backend);
