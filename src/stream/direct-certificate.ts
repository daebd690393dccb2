import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";

/**
 * What a worker's stream endpoint proves itself with: a key pair made when it starts, a
 * certificate that carries the public key, and the certificate's SHA-256 (the `pin`) that the
 * worker announces through Temporal. A reader trusts the endpoint that presents the pinned
 * certificate and nothing else, so no certificate authority, name or validity date is ever
 * checked: the certificate is only how TLS carries the key. The private key never leaves the
 * process; a new one is made each time a worker starts.
 */
export interface EndpointCertificate {
  /** The private key, PKCS #8 PEM, for the TLS server. */
  key: string;
  /** The self-signed certificate, PEM, for the TLS server. */
  cert: string;
  /** base64url SHA-256 of the certificate's DER: what readers compare with what the beacon announced. */
  pin: string;
}

/** The pin of a certificate as TLS handed it over (its DER bytes). */
export function pinOf(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("base64url");
}

/**
 * A self-signed Ed25519 certificate for a fresh key pair (about 2 ms). Written here in a few
 * lines of DER rather than with a certificate library: those bring twenty packages and a
 * global `Reflect` polyfill into every worker, for a certificate whose fields nobody reads.
 * Node's TLS (OpenSSL) still checks that the endpoint holds the key in every handshake.
 */
export function endpointCertificate(): EndpointCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const algorithm = der(0x30, der(0x06, ED25519_OID));
  const name = der(0x30, der(0x31, der(0x30, der(0x06, COMMON_NAME_OID), der(0x0c, Buffer.from("durable-agents stream endpoint")))));
  const serial = randomBytes(16);
  // A positive INTEGER with no leading zero byte.
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, serial),
    algorithm,
    name,
    // Never checked (the pin is): the widest range UTCTime spells.
    der(0x30, der(0x17, Buffer.from("000101000000Z")), der(0x17, Buffer.from("491231235959Z"))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
  );
  const certificate = der(0x30, tbs, algorithm, der(0x03, Buffer.concat([Buffer.from([0]), sign(null, tbs, privateKey)])));
  const lines = certificate.toString("base64").match(/.{1,64}/g) ?? [];
  return {
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`,
    pin: pinOf(certificate),
  };
}

const ED25519_OID = Buffer.from([0x2b, 0x65, 0x70]); // 1.3.101.112
const COMMON_NAME_OID = Buffer.from([0x55, 0x04, 0x03]); // 2.5.4.3

/** One DER element: tag, definite length, content. */
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}
