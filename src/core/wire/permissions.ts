import { defineQuery, defineUpdate } from "@temporalio/workflow";
import type { StandingPermission } from "../approval-permissions.js";
import type { Principal } from "../json.js";

/** Every standing permission granted in a run or thread, revoked and lapsed ones included (one query). */
export const permissionsQuery = defineQuery<StandingPermission[]>("durable-agents.permissions");

/** Ends a standing permission of a run or thread; AI1032 (refused in the validator, no history) when none with that id is in force. */
export const revokePermissionUpdate = defineUpdate<StandingPermission, [{ permissionId: string; by?: Principal }]>("durable-agents.permission.revoke");
