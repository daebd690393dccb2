import { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";

/**
 * The Temporal client our activities query and signal workflows through: the one the
 * worker hands to each activity (`Context.current().client`). Temporal builds it from the
 * worker's final options, so it shares the worker's connection, namespace, identity, data
 * converter (a payload codec included) and client interceptors, whichever plugin or option
 * set them. A client of our own would be built before later plugins had their say, and
 * would quietly skip a codec: its queries and signals would not decode or would leak
 * plaintext.
 *
 * Activities are created once, before any worker exists, so this stands in for that
 * client and looks it up on every use, always from inside an activity.
 */
export function workerClient(): Client {
  return new Proxy({} as Client, {
    get(_target, property) {
      const client = Context.current().client;
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === "function" ? value.bind(client) : value;
    },
  });
}
