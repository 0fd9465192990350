import { ALL_SUITES } from '@flow/checkpoint-conformance';
import { describe, expect, it } from 'vitest';
import { describePart, PARTS } from './support/conformance-parts.js';

// The shared conformance kit (what describeCheckpointer('postgres', harness) registers), first part.
describePart('core');

describe('the conformance parts', () => {
  it('cover every suite of the kit exactly once', () => {
    const covered = Object.values(PARTS).flat();
    expect(covered.map((s) => s.title).sort()).toEqual(ALL_SUITES.map((s) => s.title).sort());
    expect(new Set(covered).size).toBe(ALL_SUITES.length);
    for (const suite of ALL_SUITES) expect(covered).toContain(suite);
  });
});
