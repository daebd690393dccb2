/**
 * Who is using the page and where the front door is. `?user=` stands in for a login: the
 * example server reads the `x-user` header (see app-server.ts).
 */
const params = new URLSearchParams(location.search);

export const user = params.get("user") ?? "sam";
export const isManager = user === "mia";
export const view = params.get("view") === "usechat" ? "usechat" : "hooks";
export const baseUrl = "/agents";
export const headers = { "x-user": user };

/**
 * Tools whose calls a manager decides (their `approval.meta.requires` names the manager role,
 * see agent.ts): the customer's page says the call waits for one instead of offering buttons
 * the front door would refuse.
 */
export const decidedByManager = (toolName: string): boolean => toolName === "issueRefund";
