import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isFlowError, jsonSerializer, parseKeyList, serializerFromEnv } from '../src/index.js';

const a = randomBytes(32);
const b = randomBytes(32);
const list = `new:${a.toString('base64')}, old:${b.toString('base64')}`;
const at = { thread: 't', step: 0, field: 'state' } as const;

function invalid(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected InvalidArgumentError');
}

describe('FLOW_KEYS', () => {
  it('parses id:base64 pairs; the first is current unless FLOW_KEY_CURRENT names another', () => {
    const parsed = parseKeyList(list);
    expect(parsed.current).toBe('new');
    expect(Buffer.from(parsed.keys.old!).equals(b)).toBe(true);
    expect(parseKeyList(list, 'old').current).toBe('old');
  });

  it('rejects malformed entries, naming the id or position, never the key', () => {
    const short = randomBytes(31).toString('base64');
    const message = invalid(() => parseKeyList(`x:${short}`));
    expect(message).toContain('"x"');
    expect(message).not.toContain(short);
    expect(invalid(() => parseKeyList(`x:${a.toString('base64')}!`))).toContain('not valid base64');
    expect(invalid(() => parseKeyList(a.toString('base64')))).toContain('entry 1');
    expect(invalid(() => parseKeyList(`${list},new:${a.toString('base64')}`))).toContain('"new" twice');
    expect(invalid(() => parseKeyList(list, 'gone'))).toContain('FLOW_KEY_CURRENT "gone"');
    expect(invalid(() => parseKeyList(' , '))).toContain('holds no key');
  });

  it('serializerFromEnv: undefined without FLOW_KEYS; FLOW_ALLOW_PLAINTEXT reads plaintext records', () => {
    expect(serializerFromEnv({})).toBeUndefined();
    expect(serializerFromEnv({ FLOW_KEYS: '  ' })).toBeUndefined();
    const strict = serializerFromEnv({ FLOW_KEYS: list, FLOW_KEY_CURRENT: 'old' })!;
    expect(strict.current).toBe('old');
    const plain = jsonSerializer.serialize({ v: 1 });
    expect(() => strict.deserialize(plain, at)).toThrow(/not encrypted/);
    const migrating = serializerFromEnv({ FLOW_KEYS: list, FLOW_ALLOW_PLAINTEXT: '1' })!;
    expect(migrating.deserialize(plain, at)).toEqual({ v: 1 });
    expect(migrating.deserialize(strict.serialize('x', at), at)).toBe('x');
  });
});
