import type { RunnableConfig } from '@langchain/core/runnables';
import { type Checkpoint, type CheckpointMetadata, MemorySaver } from '@langchain/langgraph-checkpoint';

/** Stores one checkpoint's text with a commit of its own; resolves once it is durable. */
export type Commit = (thread: string, id: string, text: string) => Promise<void>;

/**
 * The floor of any LangGraph saver that makes each checkpoint durable before its `put` resolves: LangGraph's
 * `MemorySaver`, plus one single-row INSERT of the checkpoint and its metadata as JSON text per put, in a
 * transaction of its own (one commit: one fsync on SQLite with synchronous=FULL, one WAL flush on Postgres).
 * Writes stay in memory, as if they travelled with the next put for nothing. LangGraph chains each put after
 * the one before in both durabilities, so no such saver can do less per super-step than this one commit.
 */
export class CommitFloorSaver extends MemorySaver {
  constructor(private readonly commit: Commit) {
    super();
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<RunnableConfig> {
    const saved = await super.put(config, checkpoint, metadata);
    await this.commit(
      String(config.configurable?.thread_id),
      checkpoint.id,
      JSON.stringify({ checkpoint, metadata }),
    );
    return saved;
  }
}
