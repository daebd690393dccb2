import type { Payload, PayloadCodec } from "@temporalio/common";

/**
 * Payload codecs as Temporal applies a data converter's list: encode runs them in order,
 * decode in reverse. One codec stands for the list where an API takes one (a stream
 * transport, the codec server's single payloads).
 */
export function codecChain(codecs: readonly PayloadCodec[]): PayloadCodec {
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      let current = payloads;
      for (const codec of codecs) current = await codec.encode(current);
      return current;
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      let current = payloads;
      for (const codec of [...codecs].reverse()) current = await codec.decode(current);
      return current;
    },
  };
}
