import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type Store, serverUrls } from './stores.js';

/**
 * Damages the stored state of `thread` step 0 behind the checkpointer's back, the way a disk error, a bad
 * restore or a hand edit would, keeping `secret` in what is stored. Postgres cannot hold invalid JSON, so
 * there the state becomes a value the serializer cannot decode ("BigInt" tag around the secret).
 */
export async function corruptState(store: Store, thread: string, secret: string): Promise<void> {
  switch (store.backend) {
    case 'file': {
      // Same length, so the file's own size checks pass and the JSON parser meets the damage right before
      // the secret: V8's message then quotes the text around it.
      const threads = join(store.location, 'threads');
      for (const dir of readdirSync(threads)) {
        const path = join(threads, dir, '0000000000.json');
        let text: string;
        try {
          text = readFileSync(path, 'utf8');
        } catch {
          continue;
        }
        if (!text.includes(JSON.stringify(thread))) continue;
        writeFileSync(path, text.replace('"token":"', '"token":x'));
        return;
      }
      throw new Error(`no step file of ${thread}`);
    }
    case 'sqlite': {
      const db = new Database(store.location);
      try {
        db.prepare(
          `UPDATE flow_checkpoints SET state = replace(state, '"token":"', '"token":x') WHERE thread = ?`,
        ).run(thread);
      } finally {
        db.close();
      }
      return;
    }
    case 'postgres': {
      const client = new pg.Client(serverUrls().postgres);
      await client.connect();
      try {
        await client.query(`UPDATE "${store.location}".checkpoints SET state = $1::jsonb WHERE thread = $2`, [
          JSON.stringify({ $flow: 'bigint', v: secret }),
          thread,
        ]);
      } finally {
        await client.end();
      }
      return;
    }
    case 'redis': {
      const client = new Redis(serverUrls().redis);
      try {
        // The state of step 0: the end of its field of the checkpoints hash when small (kind `s` in the
        // field's header), else a key of its own (the key layout is in the Redis package's keys.ts).
        const hash = `${store.location}:cp|${thread}`;
        const field = await client.hget(hash, '0');
        const damaged = (text: string | null) => String(text).replace('"token":"', '"token":x');
        if (field?.split(' ')[2] === 's') await client.hset(hash, '0', damaged(field));
        else {
          const key = `${store.location}:st|0|${thread}`;
          await client.set(key, damaged(await client.get(key)));
        }
      } finally {
        client.disconnect();
      }
      return;
    }
    default:
      throw new Error(`cannot corrupt ${store.backend} storage`);
  }
}
