import type { Serializer } from '@flow/core';
import type { ChatState } from '../data.js';
import type { BackendId } from '../options.js';
import type { Counters } from './counters.js';

/** Who wrote the code under test: the bare driver, @flow, or LangGraph.js. */
export type Side = 'raw' | 'flow' | 'langgraph';

/** The printed name of each side. */
export const SIDE_NAMES: Record<Side, string> = { raw: 'raw', flow: '@flow', langgraph: 'LangGraph' };

/** A store the checkpoint-level workloads drive, whichever side wrote it. */
export interface StoreSubject {
  /** Writes `state` as step `step` of `thread`. */
  put(thread: string, step: number, state: ChatState): Promise<void>;
  /** Reads the latest step of `thread` and returns its state (decoded, so decoding is measured too). */
  getLatest(thread: string): Promise<unknown>;
  /** Reads step `step` of `thread` and returns its state; only @flow sides have it (W9 times it). */
  getStep?(thread: string, step: number): Promise<unknown>;
  /** Reads the `limit` newest steps of `thread`; resolves with how many it read. */
  list(thread: string, limit: number): Promise<number>;
  /** Lists every thread with its latest step; resolves with how many. `undefined`: the side has no such call. */
  listThreads: (() => Promise<number>) | undefined;
  /** Bytes the store occupies on its server or disk; `undefined` where that cannot be measured. */
  storedBytes: (() => Promise<number>) | undefined;
  /** Statements or commands sent, where the store talks to a server. */
  counters: Counters | undefined;
  /** Releases the store and removes everything it created (files, schema, keys). */
  close(): Promise<void>;
}

/** Opens fresh, empty instances of one store; each workload opens its own. */
export interface SubjectFactory {
  side: Side;
  /** What is measured, e.g. `SqliteCheckpointer` or `INSERT OR REPLACE, WAL, synchronous=FULL`. */
  label: string;
  open(): Promise<StoreSubject>;
}

/** A checkpointer or saver handed to an engine, with what it takes to measure and remove it. */
export interface OpenedStore<T> {
  store: T;
  counters: Counters | undefined;
  storedBytes: (() => Promise<number>) | undefined;
  close(): Promise<void>;
}

/** Opens a fresh engine store. */
export type StoreOpener<T> = () => Promise<OpenedStore<T>>;

/** Everything the bench compares on one backend. */
export interface BackendSuite<FlowStore = unknown, LangGraphStore = unknown> {
  id: BackendId;
  /** raw, @flow and (where one runs here) LangGraph, in that order. */
  subjects: SubjectFactory[];
  /** The raw side W4 lists against, where it is not the put floor: one that keeps a thread index. */
  listingFloor?: SubjectFactory;
  /** @flow's checkpointer on this backend, for the engine workloads. */
  flowStore: StoreOpener<FlowStore>;
  /** Other settings of it worth timing in the engine workload, e.g. a relaxed fsync; labelled by `setting`. */
  flowVariants?: { setting: string; open: StoreOpener<FlowStore> }[];
  /**
   * @flow's checkpointer on this backend writing every state whole (`stateStorage: 'whole'`): the encoding
   * before linear storage, which W9 compares bytes, puts and gets against.
   */
  flowStoreWhole?: StoreOpener<FlowStore>;
  /** @flow's checkpointer on this backend with another serializer (the encrypted one), where the bench times it. */
  flowStoreWith?: (serializer: Serializer) => StoreOpener<FlowStore>;
  /** LangGraph's saver on this backend, when one runs here. */
  langgraphStore: StoreOpener<LangGraphStore> | undefined;
  /** W8's commit floor on this backend (`CommitFloorSaver`: MemorySaver plus one commit per put), where timed. */
  commitFloor?: StoreOpener<LangGraphStore>;
  /** Printed under the tables: why a side is missing, what settings were used. */
  notes: string[];
}
