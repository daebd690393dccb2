import type { PayloadCodec } from "@temporalio/common";
import { codecChain } from "../codec/chain.js";
import { checkOptions, createDirectTransport, type DirectStreamTransport } from "./direct.js";

/**
 * The transport a worker (`createAgentWorker`) or a client uses when given none: a
 * {@link directStreamTransport} on this host's private address and a free port, its batches encoded
 * with the payload codecs of the worker's or client's data converter, so that whatever a
 * codec keeps out of Temporal in the clear stays out of the network too. Within one
 * process it delivers in-process. Readers following it also take the deltas that
 * by-signal workers (`transport: "workflow"`, a plugin on a `Worker.create` of your own,
 * older versions) put in history, so a reader needs no setting to follow either kind.
 */
export function defaultStreamTransport(codecs: readonly PayloadCodec[] = []): DirectStreamTransport {
  return createDirectTransport(checkOptions(codecs.length > 0 ? { codec: codecChain(codecs) } : {}), { shared: true });
}
