import { describePart } from './support/conformance-parts.js';

// The shared conformance kit, third part: serialization, errors, setup, durability, process races,
// close.
describePart('lifecycle');
