/**
 * docker-compose.yml cannot run here (no Docker engine); the PostgreSQL lane runs the same
 * server instead. These checks keep the two the same thing: version, config, schema
 * script, search attributes, and ports that stay on loopback.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TEMPORAL_SERVER_VERSION } from "../../src/testing/temporal-binary.js";
import * as searchAttributeKeys from "../../src/core/search-attributes.js";

const compose = readFileSync(new URL("../../docker-compose.yml", import.meta.url), "utf8");

describe("docker-compose.yml", () => {
  it("runs the server version the lane builds, from current images (no deprecated auto-setup)", () => {
    const images = [...compose.matchAll(/image: (temporalio\/[\w-]+):(\S+)/g)].map(([, image, tag]) => ({ image, tag }));
    expect(images.map((i) => i.image)).not.toContain("temporalio/auto-setup");
    const server = images.filter((i) => i.image === "temporalio/server" || i.image === "temporalio/admin-tools");
    expect(server.map((i) => i.image)).toEqual(expect.arrayContaining(["temporalio/server", "temporalio/admin-tools"]));
    for (const { tag } of server) expect(tag).toBe(TEMPORAL_SERVER_VERSION.slice(1));
  });

  it("starts the server with the lane's config file and takes the lane's schema steps", () => {
    expect(compose).toContain("./scripts/temporal-server:/etc/durable-agents/temporal-server:ro");
    expect(compose).toMatch(/exec temporal-server --root \/ --config \/etc\/durable-agents\/temporal-server --env postgres/);
    expect(compose).toContain('entrypoint: ["sh", "/etc/durable-agents/temporal-server/setup-schema.sh"]');
  });

  it("registers exactly the SDK's search attributes with their types", () => {
    const line = /for sa in ([^;]+); do/.exec(compose)?.[1] ?? "";
    const registered = line.trim().split(/\s+/).sort();
    const expected = Object.values(searchAttributeKeys)
      .map((key) => `${key.name}=${key.type === "DATETIME" ? "Datetime" : "Keyword"}`)
      .sort();
    expect(Object.values(searchAttributeKeys).every((key) => key.type === "KEYWORD" || key.type === "DATETIME")).toBe(true);
    expect(registered).toEqual(expected);
  });

  it("publishes ports on 127.0.0.1 only", () => {
    const published = [...compose.matchAll(/^\s+- "([^"]*:\d+)"$/gm)].map(([, port]) => port);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });
});
