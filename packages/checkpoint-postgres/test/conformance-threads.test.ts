import { describePart } from './support/conformance-parts.js';

// The shared conformance kit, second part: listThreads, retention, thread ids.
describePart('threads');
