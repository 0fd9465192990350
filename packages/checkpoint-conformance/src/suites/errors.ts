import type { Checkpoint, ListOptions, ListThreadsOptions, PutOptions } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint, observe } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/** Errors: stable `code` and `name` on every rejection; invalid options rejected before anything changes. */
export const errorsSuite: ConformanceSuite = {
  title: 'errors',
  define(kit) {
    it('every error carries its stable code and class name', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      const conflict = await expectFlowError(
        () => cp.put(checkpoint('t', 0), { ifRevision: 0 }),
        'CHECKPOINT_CONFLICT',
        'put({ ifRevision: 0 }) over a stored step',
      );
      const invalid = await expectFlowError(() => cp.get('t', -1), 'INVALID_ARGUMENT', 'get(t, -1)');
      const serialization = await expectFlowError(
        () => cp.put(checkpoint('t', 1, { state: { f: () => 0 } })),
        'SERIALIZATION',
        'put(state with a function)',
      );
      for (const error of [conflict, invalid, serialization]) {
        expect(error.message.length, `${error.name} has a message`).toBeGreaterThan(0);
      }
    });

    it('a conflict names its backend, thread and step in the message, and carries them as fields', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('order-7', 13));
      const conflict = await expectFlowError(
        () => cp.put(checkpoint('order-7', 13), { ifRevision: 0 }),
        'CHECKPOINT_CONFLICT',
        'put({ ifRevision: 0 }) over a stored step',
      );
      // `[flow:<backend>] `: the one prefix that says which backend spoke (docs/protocol.md, "Errors").
      expect(conflict.message).toMatch(/^\[flow:[^\]\s]+\] /);
      expect(conflict.message).toContain('"order-7"');
      expect(conflict.message).toContain('13');
      expect({ ...conflict }).toMatchObject({ thread: 'order-7', step: 13, expected: 0, actual: 1 });
    });

    it('invalid put options (ifRevision -1, 1.5, "1", NaN, null) reject with InvalidArgumentError and write nothing', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { state: 'kept' }));
      const before = await observe(cp, 't');
      const bad: Array<[string, unknown]> = [
        ['-1', -1],
        ['1.5', 1.5],
        ['"1"', '1'],
        ['NaN', Number.NaN],
        ['Infinity', Number.POSITIVE_INFINITY],
        ['null', null],
      ];
      for (const [label, ifRevision] of bad) {
        for (const step of [0, 1]) {
          await expectFlowError(
            () => cp.put(checkpoint('t', step, { state: 'lost' }), { ifRevision } as PutOptions),
            'INVALID_ARGUMENT',
            `put(step ${step}, { ifRevision: ${label} })`,
          );
        }
      }
      expect(await observe(cp, 't')).toEqual(before);
    });

    it('invalid checkpoint fields handed to put reject with InvalidArgumentError and write nothing', async () => {
      const cp = await kit.create();
      const bad: Array<[string, Record<string, unknown>]> = [
        ['step -1', { step: -1 }],
        ['step 1.5', { step: 1.5 }],
        ['step 2^31', { step: 2 ** 31 }],
        ['ts "yesterday"', { ts: 'yesterday' }],
        ['ts "hello 5"', { ts: 'hello 5' }],
        ['next "a"', { next: 'a' }],
        // Node names every backend stores as they are: Postgres text refuses U+0000 and replaces a lone surrogate.
        ['next ["a\\u0000b"]', { next: ['a\u0000b'] }],
        ['next ["\\ud800"]', { next: ['\ud800'] }],
        ['interruptNode "x\\u0000"', { interrupted: true, interruptNode: 'x\u0000', next: ['x'] }],
        ['interrupted "yes"', { interrupted: 'yes' }],
      ];
      for (const [label, fields] of bad) {
        // Plain objects: the Checkpoint constructor would reject these before the backend saw them.
        const raw = { thread: 't', step: 0, state: {}, ...fields } as unknown as Checkpoint;
        await expectFlowError(() => cp.put(raw), 'INVALID_ARGUMENT', `put(${label})`);
      }
      expect(await cp.listThreads()).toEqual([]);
    });

    it('invalid steps and list / listThreads options reject with InvalidArgumentError', async () => {
      const cp = await kit.create();
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['get(t, -1)', () => cp.get('t', -1)],
        ['get(t, 0.5)', () => cp.get('t', 0.5)],
        ['get(t, "1")', () => cp.get('t', '1' as unknown as number)],
        ['list(t, { limit: -1 })', () => cp.list('t', { limit: -1 })],
        ['list(t, { limit: 1.5 })', () => cp.list('t', { limit: 1.5 })],
        ['list(t, { beforeStep: -1 })', () => cp.list('t', { beforeStep: -1 })],
        ['list(t, { beforeStep: "2" })', () => cp.list('t', { beforeStep: '2' } as unknown as ListOptions)],
        ['listThreads({ limit: -1 })', () => cp.listThreads({ limit: -1 })],
        [
          'listThreads({ status: "paused" })',
          () => cp.listThreads({ status: 'paused' } as unknown as ListThreadsOptions),
        ],
      ];
      for (const [label, call] of calls) await expectFlowError(call, 'INVALID_ARGUMENT', label);
    });

    it('list and listThreads options that are not an object (null, a string, a number) reject with InvalidArgumentError', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      for (const [label, opts] of [
        ['null', null],
        ['"2"', '2'],
        ['5', 5],
      ] as const) {
        await expectFlowError(
          () => cp.list('t', opts as unknown as ListOptions),
          'INVALID_ARGUMENT',
          `list(t, ${label})`,
        );
        await expectFlowError(
          () => cp.listThreads(opts as unknown as ListThreadsOptions),
          'INVALID_ARGUMENT',
          `listThreads(${label})`,
        );
      }
    });
  },
};

/** Runs only the error checks: `describeErrors('mine', harness)`. */
export const describeErrors = describerFor(errorsSuite);
