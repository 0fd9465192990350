import type { RedisArg } from './client.js';

/** A put script's answer for one put: its code (1 written, 0 conflict, 2 missing chunk, 3 failed), then a value. */
export type PutReply = readonly [code: number, value: number | string];

interface Queued {
  readonly args: readonly RedisArg[];
  resolve(reply: PutReply): void;
  reject(error: unknown): void;
}

/** At most this many puts share one script call (a larger burst makes more calls). */
const MAX_BATCH = 64;

/**
 * Puts that arrive together go to Redis in one put script call per cluster bucket (every key of a call must
 * share one slot): one request and one script run instead of one each, as when concurrent runs of a process
 * reach their next put after the same read of the socket. The call goes out once the current microtasks have
 * run (`process.nextTick`), so a lone put waits no event-loop turn.
 *
 * Each put stays atomic on its own and answers alone: the script runs the puts in turn and gives each its own
 * reply (a conflict or a failed command is that put's), and no put resolves before the call that applied it
 * returned. Only a failure of the call as a whole (the connection, say) rejects every put in it.
 */
export class PutBatches {
  readonly #queues = new Map<number, Queued[]>();
  #scheduled = false;

  /** @param send runs the put script for `puts` (each a put's arguments) in `bucket`: its code and value for each put, flat. */
  constructor(readonly send: (bucket: number, puts: readonly (readonly RedisArg[])[]) => Promise<unknown>) {}

  /** Queues one put's script arguments; resolves with its reply once the call holding it returned. */
  put(bucket: number, args: readonly RedisArg[]): Promise<PutReply> {
    return new Promise<PutReply>((resolve, reject) => {
      let queue = this.#queues.get(bucket);
      if (queue === undefined) {
        queue = [];
        this.#queues.set(bucket, queue);
      }
      queue.push({ args, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        process.nextTick(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    for (const [bucket, queue] of this.#queues) {
      this.#queues.delete(bucket);
      for (let first = 0; first < queue.length; first += MAX_BATCH) {
        void this.#run(bucket, queue.slice(first, first + MAX_BATCH));
      }
    }
  };

  async #run(bucket: number, batch: readonly Queued[]): Promise<void> {
    let replies: unknown;
    try {
      replies = await this.send(
        bucket,
        batch.map((put) => put.args),
      );
    } catch (error) {
      for (const put of batch) put.reject(error);
      return;
    }
    // Two items per put: its code and its value.
    const list = Array.isArray(replies) ? (replies as unknown[]) : [];
    for (const [i, put] of batch.entries()) {
      const code = list[2 * i];
      if (typeof code === 'number' && 2 * i + 1 < list.length)
        put.resolve([code, list[2 * i + 1] as number | string]);
      else
        put.reject(new Error(`the put script answered ${list.length / 2} replies for ${batch.length} puts`));
    }
  }
}
