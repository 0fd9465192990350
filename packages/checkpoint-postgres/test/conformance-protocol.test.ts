import { describePart } from './support/conformance-parts.js';

// The shared conformance kit, fourth part: per-step writes, leases and failed runs.
describePart('protocol');
