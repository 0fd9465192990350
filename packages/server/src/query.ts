import { assertThreadId, isFlowError, MAX_STEP } from '@flow/core';
import { HttpError } from './http-error.js';

const invalid = (message: string) => new HttpError(400, 'INVALID_ARGUMENT', message);

/** A path segment, percent-decoded (a malformed escape is a 400). */
export function decodeSegment(segment: string, what: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid(`${what} is not a well-formed percent-encoded path segment`);
  }
}

/** A thread id from the path, checked by the same rule as the store's. */
export function threadParam(segment: string): string {
  const thread = decodeSegment(segment, 'the thread id');
  try {
    assertThreadId(thread);
  } catch (error) {
    if (isFlowError(error, 'INVALID_ARGUMENT')) throw invalid(error.message);
    throw error;
  }
  return thread;
}

/** An optional integer query parameter within [min, max]. */
export function intParam(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** A step: from the path or a query parameter. */
export function stepParam(text: string, name: string): number {
  if (!/^\d+$/.test(text) || Number(text) > MAX_STEP) {
    throw invalid(`${name} must be a step (an integer from 0 to ${MAX_STEP}), got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** One of `choices`, or undefined when the parameter is absent. */
export function choiceParam<T extends string>(
  params: URLSearchParams,
  name: string,
  choices: readonly T[],
): T | undefined {
  const text = params.get(name);
  if (text === null) return undefined;
  if (!(choices as readonly string[]).includes(text)) {
    throw invalid(`${name} must be one of ${choices.join(', ')}; got ${JSON.stringify(text)}`);
  }
  return text as T;
}

/** Throws a 400 unless `value` is a plain JSON object (or absent when `optional`). */
export function objectField(
  body: Record<string, unknown>,
  name: string,
): Record<string, unknown> | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${name} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

export { invalid };
