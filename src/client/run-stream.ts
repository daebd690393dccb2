import type { Client } from "@temporalio/client";
import { RunNotFoundError } from "../core/errors/runs.js";
import { InvalidDefinitionError } from "../core/errors/setup.js";
import type { StreamSnapshot } from "../core/thread-contracts.js";
import { runStreamQuery } from "../core/wire/run.js";
import type { StreamTransport } from "../stream/transport.js";
import { boundedQuery, type QueryDeadline } from "./bounded-query.js";
import { currentDetails } from "./history-watch.js";
import { translateRun } from "./run-failure.js";
import type { StreamSource } from "./threads/stream-hub.js";

/**
 * Where a client's readers of runs read: the run's stream query (bounded like every run
 * read, AI1015 when no worker answers, AI1010 for an unknown run) and its status line. The
 * process's stream hub keys its pollers by this object, so every reader of a run through
 * one client shares one poller.
 */
export class RunStreamSource implements StreamSource {
  constructor(
    readonly client: Client,
    readonly streamTransport: StreamTransport,
    private readonly reads: QueryDeadline,
  ) {}

  readStream(runId: string, fromSeq: number, via: Client): Promise<StreamSnapshot> {
    return this.#read(runId, via, () => via.workflow.getHandle(runId).query(runStreamQuery, { fromSeq }));
  }

  readStatusLine(runId: string, via: Client): Promise<string | undefined> {
    return this.#read(runId, via, () => currentDetails(via, runId));
  }

  notFound(runId: string): Error {
    return new RunNotFoundError({ runId });
  }

  #read<T>(runId: string, via: Client, read: () => Promise<T>): Promise<T> {
    return translateRun(runId, () => boundedQuery(via, this.reads, runId, read));
  }
}

/** `fromSeq` as a reader may give it: a whole number from 0 (AI1001 otherwise, nothing read). */
export function fromSeqOf(fromSeq: unknown, subject: string): number {
  if (fromSeq === undefined) return 0;
  if (typeof fromSeq !== "number" || !Number.isSafeInteger(fromSeq) || fromSeq < 0) {
    throw new InvalidDefinitionError({ subject, problem: "fromSeq must be a whole number from 0 (the seq of the last entry seen)" });
  }
  return fromSeq;
}
