/**
 * This release's version, as package.json says it (a unit test holds the two together). The
 * MCP server and client announce it, so an operator can tell which release answered.
 */
export const SDK_VERSION = "1.0.0-rc.1";
