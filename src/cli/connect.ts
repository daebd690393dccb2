/**
 * The connection a command opens. The Temporal client, the config loader, `AgentClient` and
 * the codec are imported when a command connects, not when the CLI starts: `--help`, usage
 * mistakes and flag checks never load them.
 */
import type { AgentClient } from "../client/agent-client.js";
import { httpUrl } from "./flags.js";
import type { CliIo } from "./io.js";
import { FlagError } from "./render.js";

/** The connection flags every command takes; unset ones come from the Temporal environment. */
export interface ConnectionFlags {
  address?: string;
  namespace?: string;
  profile?: string;
  taskQueue?: string;
  /** A codec server to decode (and encode) payloads through, for runs whose payloads are encrypted. */
  codecEndpoint?: string;
  /** `Authorization` header for the codec server. */
  codecAuth?: string;
}

/** The task queue the agents' workers poll when neither `--task-queue` nor the environment says. */
export const DEFAULT_TASK_QUEUE = "agents";

/**
 * An `AgentClient` connected the way Temporal's own CLI and SDKs connect: the profile in
 * the config file (`TEMPORAL_CONFIG_FILE`, `--profile` / `TEMPORAL_PROFILE`), overridden by
 * `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`, overridden
 * by the flags. The deferral secret, for resumes, comes from `DEFERRAL_SECRET`.
 */
export async function connectClient(flags: ConnectionFlags & { io: CliIo }): Promise<{ agents: AgentClient; close: () => Promise<void> }> {
  const { env } = flags.io;
  // As Temporal's own CLI does: payloads go through the codec server, which holds the keys.
  // Read first: a usage mistake is reported before anything connects.
  const codecEndpoint = flags.codecEndpoint ?? codecEndpointFromEnv(env.TEMPORAL_CODEC_ENDPOINT);
  const codecAuth = flags.codecAuth ?? env.TEMPORAL_CODEC_AUTH;
  const [{ Connection }, { loadClientConnectConfig }, { AgentClient }] = await Promise.all([import("@temporalio/client"), import("@temporalio/envconfig"), import("../client/agent-client.js")]);
  const remoteCodec = codecEndpoint ? (await import("../codec/remote.js")).remoteCodec : undefined;
  const overrideEnvVars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const config = loadClientConnectConfig({ overrideEnvVars, ...(flags.profile ? { profile: flags.profile } : {}) });
  const connection = await Connection.connect({
    ...config.connectionOptions,
    ...(flags.address ? { address: flags.address } : {}),
  } as never);
  const secret = env.DEFERRAL_SECRET;
  const namespace = flags.namespace ?? config.namespace ?? "default";
  const agents = new AgentClient({
    connection,
    namespace,
    ...(codecEndpoint && remoteCodec
      ? { dataConverter: { payloadCodecs: [remoteCodec({ endpoint: codecEndpoint, namespace, ...(codecAuth ? { authorization: codecAuth } : {}) })] } }
      : {}),
    taskQueue: flags.taskQueue ?? env.DURABLE_AGENTS_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    ...(secret ? { deferral: { secret } } : {}),
  });
  return { agents, close: () => connection.close() };
}

/**
 * Refuses a command that mints or checks resume tokens (a usage mistake, exit 2) when
 * `DEFERRAL_SECRET` is not set, before anything connects.
 */
export function requireDeferralSecret(io: CliIo): void {
  if (!io.env.DEFERRAL_SECRET) throw new FlagError("set DEFERRAL_SECRET to the secret the workers sign tokens with");
}

/** `TEMPORAL_CODEC_ENDPOINT`, checked as `--codec-endpoint` is (a usage mistake, exit 2, when it is not a URL). */
function codecEndpointFromEnv(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return httpUrl(value);
  } catch (err) {
    throw new FlagError(`TEMPORAL_CODEC_ENDPOINT "${value}" is invalid. ${(err as Error).message}`);
  }
}

/** Runs `work` with a connected client, closing the connection however it ends. */
export async function withAgents<T>(flags: ConnectionFlags & { io: CliIo }, work: (agents: AgentClient) => Promise<T>): Promise<T> {
  const { agents, close } = await connectClient(flags);
  try {
    return await work(agents);
  } finally {
    await close();
  }
}
