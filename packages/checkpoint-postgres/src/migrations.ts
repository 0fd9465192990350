/**
 * The versioned schema changes, applied in order by `setup()` (core's `migrate`) and recorded in the schema's
 * `migrations` table (named `schema_migrations` by stores of the first releases, renamed at their next migration).
 * Append only: a released migration is never edited, a change is a new version.
 * `s` is the quoted schema name.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  sql(s: string): string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'checkpoints and thread summaries',
    sql: (s) => `
      CREATE TABLE ${s}.checkpoints (
        thread            text COLLATE "C" NOT NULL,
        step              integer NOT NULL CHECK (step >= 0),
        revision          bigint NOT NULL CHECK (revision > 0),
        state             jsonb NOT NULL,
        next              text[] NOT NULL,
        interrupted       boolean NOT NULL,
        interrupt_node    text,
        interrupt_payload jsonb NOT NULL,
        ts                timestamptz NOT NULL,
        PRIMARY KEY (thread, step)
      );
      -- One row per thread, describing its highest step: listThreads reads this table only, never state.
      CREATE TABLE ${s}.threads (
        thread      text COLLATE "C" PRIMARY KEY,
        latest_step integer NOT NULL,
        interrupted boolean NOT NULL,
        done        boolean NOT NULL,
        ts          timestamptz NOT NULL
      );
      -- Interrupted threads are the ones people look for (the human inbox), and usually few.
      CREATE INDEX threads_interrupted_idx ON ${s}.threads (thread) WHERE interrupted;
    `,
  },
  {
    version: 2,
    name: 'failed runs, meta, per-step writes and leases',
    sql: (s) => `
      -- error: the run failed at this checkpoint ({ node, message }); meta: small plain JSON of the engine's.
      ALTER TABLE ${s}.checkpoints
        ADD COLUMN error jsonb,
        ADD COLUMN meta  jsonb NOT NULL DEFAULT '{}';
      -- The summary keeps what a ThreadInfo is built from (the frontier, the error) and the status the
      -- writer derived from them with core's statusOf, which listThreads filters on.
      ALTER TABLE ${s}.threads
        ADD COLUMN next   text[],
        ADD COLUMN error  jsonb,
        ADD COLUMN status text;
      UPDATE ${s}.threads AS t SET next = c.next
        FROM ${s}.checkpoints AS c WHERE c.thread = t.thread AND c.step = t.latest_step;
      -- Rows of version 1 had no error, so none of them is failed.
      UPDATE ${s}.threads SET next = '{}' WHERE next IS NULL AND done;
      UPDATE ${s}.threads SET next = '{?}' WHERE next IS NULL;
      UPDATE ${s}.threads SET status = CASE WHEN interrupted THEN 'interrupted' WHEN done THEN 'done' ELSE 'running' END;
      ALTER TABLE ${s}.threads
        ALTER COLUMN next SET NOT NULL,
        ALTER COLUMN status SET NOT NULL,
        ADD CONSTRAINT threads_status_check CHECK (status IN ('running', 'interrupted', 'done', 'failed')),
        DROP COLUMN done;
      CREATE INDEX threads_status_idx ON ${s}.threads (status, thread);
      -- Results of one super-step, per node and key; the first value stored for a key wins.
      CREATE TABLE ${s}.writes (
        thread text COLLATE "C" NOT NULL,
        step   integer NOT NULL CHECK (step >= 0),
        node   text COLLATE "C" NOT NULL,
        key    text COLLATE "C" NOT NULL,
        value  jsonb NOT NULL,
        PRIMARY KEY (thread, step, node, key)
      );
      -- Who runs a thread, until when (by the server's clock).
      CREATE TABLE ${s}.leases (
        thread     text COLLATE "C" PRIMARY KEY,
        owner      text NOT NULL,
        host       text NOT NULL,
        pid        integer NOT NULL,
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'error and meta as text',
    sql: (s) => `
      -- JSONB refuses U+0000 even escaped, and a run error's message may hold one (it comes from any thrown
      -- error). Core hands both over as JSON text and reads them back as text, so text keeps them exactly.
      ALTER TABLE ${s}.checkpoints
        ALTER COLUMN error TYPE text USING error::text,
        ALTER COLUMN meta DROP DEFAULT,
        ALTER COLUMN meta TYPE text USING meta::text,
        ALTER COLUMN meta SET DEFAULT '{}';
      ALTER TABLE ${s}.threads
        ALTER COLUMN error TYPE text USING error::text;
    `,
  },
  {
    version: 4,
    name: 'thread summaries as one text',
    sql: (s) => `
      -- What listThreads hands back for a thread, as core's threadSummaryOf writes it ("<step> <status> <ts>",
      -- then " <error JSON>" when failed): the listing reads two columns per thread instead of six. The ts is
      -- Date#toISOString's form: years 0000-9999 in four digits, others signed in six (1 BC is year 0).
      ALTER TABLE ${s}.threads ADD COLUMN info text;
      UPDATE ${s}.threads AS t SET info = t.latest_step || ' ' || t.status || ' ' ||
          CASE WHEN y.n BETWEEN 0 AND 9999 THEN lpad(y.n::text, 4, '0')
               WHEN y.n > 9999 THEN '+' || lpad(y.n::text, 6, '0')
               ELSE '-' || lpad((-y.n)::text, 6, '0') END ||
          to_char(t.ts AT TIME ZONE 'UTC', '-MM-DD"T"HH24:MI:SS.MS"Z"') ||
          CASE WHEN t.status = 'failed' THEN ' ' || coalesce(t.error, 'null') ELSE '' END
        FROM (
          SELECT thread, CASE WHEN p.y < 0 THEN p.y + 1 ELSE p.y END AS n
          FROM (SELECT thread, extract(year FROM ts AT TIME ZONE 'UTC')::integer AS y FROM ${s}.threads) AS p
        ) AS y
        WHERE y.thread = t.thread;
      ALTER TABLE ${s}.threads ALTER COLUMN info SET NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'chunks of linear state',
    sql: (s) => `
      -- Parts of a thread's states that later steps share unchanged: stored once per thread, as the
      -- serializer's text, and referenced by id from each checkpoint's refs.
      CREATE TABLE ${s}.chunks (
        thread text COLLATE "C" NOT NULL,
        id     text COLLATE "C" NOT NULL,
        data   text NOT NULL,
        PRIMARY KEY (thread, id)
      );
      -- The chunk ids a checkpoint's state references; NULL for a whole state, as every earlier row holds.
      ALTER TABLE ${s}.checkpoints ADD COLUMN refs text[];
    `,
  },
  {
    version: 6,
    name: 'refs as one text',
    sql: (s) => `
      -- A checkpoint's chunk ids joined by spaces (ids are [0-9A-Za-z._-], so a space never occurs in one):
      -- about 11 bytes a ref where a text[] element takes 16 and the array 24 more, over 100 bytes a row of W6.
      -- NULL stays NULL (a whole state); an empty array becomes ''.
      ALTER TABLE ${s}.checkpoints ALTER COLUMN refs TYPE text USING array_to_string(refs, ' ');
    `,
  },
  {
    version: 7,
    name: 'linear skeletons as text',
    sql: (s) => `
      -- A linear checkpoint's state is core's skeleton, not the state: as JSONB it took about 113 bytes of W6's
      -- 51-character text (JSONB keeps every number as numeric, every array with a header and entries). New
      -- linear rows keep it in skeleton, state NULL; whole states stay JSONB, and earlier linear rows as they
      -- were (their skeleton in state), so nothing is rewritten. Exactly one of the two is set.
      ALTER TABLE ${s}.checkpoints
        ALTER COLUMN state DROP NOT NULL,
        ADD COLUMN skeleton text,
        ADD CONSTRAINT checkpoints_state_or_skeleton CHECK ((state IS NULL) <> (skeleton IS NULL));
    `,
  },
  {
    version: 8,
    name: 'no CHECK constraints on written rows',
    sql: (s) => `
      -- Postgres prepares a table's CHECK expressions again in every statement that writes a row of it (they
      -- are read from the catalog and planned per execution, not per prepared plan): 25-35 us of a put's
      -- 90 us on the server, measured with pg_stat_statements. Every value they guarded is computed by this
      -- package's statements or checked by core before it is sent (steps, revisions, the status, state or
      -- skeleton), so they only kept out rows written by hand. NOT NULL stays: it costs no expression.
      ALTER TABLE ${s}.checkpoints
        DROP CONSTRAINT IF EXISTS checkpoints_step_check,
        DROP CONSTRAINT IF EXISTS checkpoints_revision_check,
        DROP CONSTRAINT IF EXISTS checkpoints_state_or_skeleton;
      ALTER TABLE ${s}.threads DROP CONSTRAINT IF EXISTS threads_status_check;
      ALTER TABLE ${s}.writes DROP CONSTRAINT IF EXISTS writes_step_check;
    `,
  },
];

/** The newest schema version this release knows. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
