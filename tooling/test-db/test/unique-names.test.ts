import { describe, expect, it } from 'vitest';
import { RUN_ID_ENV, uniquePrefix, uniqueSchema } from '../src/index.js';

describe('unique names', () => {
  it('gives schema names that are valid, distinct and carry the run id', () => {
    const names = new Set(Array.from({ length: 200 }, () => uniqueSchema()));
    expect(names.size).toBe(200);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/);
      expect(name.startsWith(`flow_test_${process.env[RUN_ID_ENV]}_`)).toBe(true);
    }
  });

  it('gives key prefixes that are valid, distinct, equally long and carry the run id', () => {
    const prefixes = Array.from({ length: 200 }, () => uniquePrefix());
    expect(new Set(prefixes).size).toBe(200);
    for (const prefix of prefixes) {
      expect(prefix).toMatch(/^[A-Za-z0-9_:.-]{1,64}$/);
      expect(prefix.startsWith(`flow_test:${process.env[RUN_ID_ENV]}:`)).toBe(true);
      expect(prefix.length).toBe(prefixes[0]!.length);
    }
  });
});
