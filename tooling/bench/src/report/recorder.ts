import { progress } from '../progress.js';
import type { Section } from './section.js';

/** A workload that threw on one backend. */
export interface Failure {
  workload: string;
  backend: string;
  message: string;
}

/** Collects the sections the workloads produce and the failures they hit. */
export class Recorder {
  readonly sections: Section[] = [];
  readonly failures: Failure[] = [];

  add(...sections: Section[]): void {
    this.sections.push(...sections);
  }

  /**
   * Runs one workload on one backend. A throw is recorded and printed, and the bench goes on with the
   * rest, so one broken store does not hide the others' numbers; the exit code reports it at the end.
   */
  async guard(workload: string, backend: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.failures.push({ workload, backend, message });
      progress(`FAILED ${workload} on ${backend}: ${message}`);
    }
  }
}
