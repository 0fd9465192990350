import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

class Money {
  constructor(
    readonly cents: number,
    readonly currency: string,
  ) {}
  format(): string {
    return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
  }
}

// The README's Limits: what a resumed run gets back is what the serializer gives back. These tests pin it.
describe.each(allBackends())('values across a resume on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('a class instance or an Error from a task comes back as plain fields; plain data comes back equal', async () => {
    const seen: unknown[] = [];
    const app = new StateGraph<{ out: string[] }>()
      .addNode('pay', async (_s, ctx) => {
        const charge = await ctx.task('charge', () => ({
          money: new Money(1250, 'EUR'),
          failure: Object.assign(new Error('card declined'), { code: 'declined' }),
          plain: { cents: 1250, currency: 'EUR', at: new Date('2026-01-01T00:00:00.000Z') },
        }));
        seen.push(charge);
        ctx.interrupt('confirm?');
        return {};
      })
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    await app.invoke({ out: [] }, { thread: 'classes' });
    await app.resume('classes', { answer: 'ok' });
    const [first, second] = seen as { money: Money; failure: Error & { code: string }; plain: unknown }[];
    expect(first?.money).toBeInstanceOf(Money);
    expect(first?.money.format()).toBe('12.50 EUR');
    // After the resume: the stored value, as the default serializer round-trips it.
    expect(second?.money).not.toBeInstanceOf(Money);
    expect(second?.money).toEqual({ cents: 1250, currency: 'EUR' });
    expect(second?.failure).not.toBeInstanceOf(Error);
    expect(second?.failure).toEqual({ code: 'declined' });
    // The supported way: plain data, which comes back equal.
    expect(second?.plain).toEqual(first?.plain);
  });
});
