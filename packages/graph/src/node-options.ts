import { InvalidArgumentError } from '@flow/core';
import { GRAPH } from './errors.js';
import type { NodeOptions, RetryOptions } from './types.js';

const q = JSON.stringify;

/** A node's retry policy with every default filled in. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly backoffFactor: number;
  readonly maxDelayMs: number;
  readonly jitter: boolean;
  readonly retryOn: (error: unknown) => boolean;
}

/** `addNode` options as the engine uses them. */
export interface NodeSettings {
  readonly retry: RetryPolicy | undefined;
  readonly timeoutMs: number | undefined;
}

/** The longest timeout or delay the engine accepts: the largest `setTimeout` delay (about 24.8 days). */
export const MAX_DELAY_MS = 2_147_483_647;

function number(value: unknown, what: string, min: number, max: number, integer: boolean): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!integer || Number.isInteger(value)) &&
    value >= min &&
    value <= max;
  if (!ok) {
    const kind = integer ? 'an integer' : 'a number';
    throw new InvalidArgumentError(
      `${GRAPH}${what} must be ${kind} from ${min} to ${max} (got ${String(value)})`,
    );
  }
  return value as number;
}

function retryPolicy(node: string, retry: RetryOptions): RetryPolicy | undefined {
  const at = (key: string) => `node ${q(node)}: retry.${key}`;
  if (typeof retry !== 'object' || retry === null) {
    throw new InvalidArgumentError(`${GRAPH}node ${q(node)}: retry must be an object { maxAttempts, ... }`);
  }
  const maxAttempts = number(retry.maxAttempts ?? 1, at('maxAttempts'), 1, 1_000_000, true);
  const initialDelayMs = number(retry.initialDelayMs ?? 100, at('initialDelayMs'), 0, MAX_DELAY_MS, false);
  const backoffFactor = number(retry.backoffFactor ?? 2, at('backoffFactor'), 1, 1_000, false);
  const maxDelayMs = number(retry.maxDelayMs ?? 10_000, at('maxDelayMs'), 0, MAX_DELAY_MS, false);
  const jitter = retry.jitter ?? true;
  if (typeof jitter !== 'boolean')
    throw new InvalidArgumentError(`${GRAPH}${at('jitter')} must be a boolean`);
  const retryOn = retry.retryOn ?? (() => true);
  if (typeof retryOn !== 'function')
    throw new InvalidArgumentError(`${GRAPH}${at('retryOn')} must be a function`);
  if (maxAttempts === 1) return undefined;
  return { maxAttempts, initialDelayMs, backoffFactor, maxDelayMs, jitter, retryOn };
}

/** Checks `addNode`'s options (`InvalidArgumentError`); `undefined` when the node needs none of the machinery. */
export function nodeSettings(node: string, options: NodeOptions | undefined): NodeSettings | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `${GRAPH}node ${q(node)}: options must be an object { retry?, timeoutMs? }`,
    );
  }
  const retry = options.retry === undefined ? undefined : retryPolicy(node, options.retry);
  const timeoutMs =
    options.timeoutMs === undefined
      ? undefined
      : number(options.timeoutMs, `node ${q(node)}: timeoutMs`, 1, MAX_DELAY_MS, true);
  if (retry === undefined && timeoutMs === undefined) return undefined;
  return { retry, timeoutMs };
}

/**
 * The wait before attempt `attempt + 1` (after `attempt` failed): `initialDelayMs · backoffFactor^(attempt-1)`,
 * capped at `maxDelayMs`; with `jitter`, a uniformly random value between half of it and all of it, so
 * workers that failed together do not retry in lockstep.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.backoffFactor ** (attempt - 1));
  return policy.jitter ? base / 2 + random() * (base / 2) : base;
}
