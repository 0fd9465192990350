/**
 * The versioned schema changes, applied in order by `setup()` and recorded in `schema_migrations`.
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
];

/** The newest schema version this release knows. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
