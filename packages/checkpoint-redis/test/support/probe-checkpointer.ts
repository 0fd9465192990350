import type { Redis } from 'ioredis';
import { RedisCheckpointer } from '../../src/index.js';

/** A RedisCheckpointer whose own connection the test can reach (to kill it, block it, or watch it). */
export class ProbeCheckpointer extends RedisCheckpointer {
  get connection(): Redis {
    return this.client as Redis;
  }
}
