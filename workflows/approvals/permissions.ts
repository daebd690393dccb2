import { setHandler } from "@temporalio/workflow";
import { livePermissions, permissionsOf, type StandingPermission } from "../../src/core/approval-permissions.js";
import { plainJsonProblem } from "../../src/core/json-check.js";
import type { Principal } from "../../src/core/json.js";
import type { DeferralRecord } from "../../src/core/deferral-record.js";
import { PermissionNotFoundError } from "../../src/core/errors/deferrals.js";
import { permissionsQuery, revokePermissionUpdate } from "../../src/core/wire/permissions.js";

/**
 * Standing permissions of a run or a thread, for both hosts: they are read from the host's
 * approval records (where the decisions that granted them are kept), so they travel with
 * them across continue-as-new and need no state of their own.
 */

/** The model call's `permissions` field: the live ones, only when there are any (so a host without adds nothing to its history). */
export function permissionsField(records: readonly DeferralRecord[]): { permissions?: StandingPermission[] } {
  const live = livePermissions(records, Date.now());
  return live.length > 0 ? { permissions: live } : {};
}

/**
 * Lists and revokes the permissions kept in `records` (the host's live list: records added
 * later are seen). A revocation is kept on the record of the request that granted it.
 */
export function handlePermissions(
  records: () => readonly DeferralRecord[],
  // A thread counts what its handlers add to history, to know when to continue as new.
  recorded: <A extends unknown[], R>(handler: (...args: A) => R) => (...args: A) => R = (handler) => handler,
): void {
  setHandler(permissionsQuery, () => permissionsOf(records()));
  setHandler(
    revokePermissionUpdate,
    recorded((request: { permissionId: string; by?: Principal }) => {
      const list = records();
      const permission = livePermissions(list, Date.now()).find((p) => p.permissionId === request.permissionId)!;
      const record = list.find((r) => r.id === permission.approvalId)!;
      const revoked = { permissionId: permission.permissionId, at: new Date(Date.now()).toISOString(), ...(request.by ? { by: request.by } : {}) };
      record.approval!.revoked = [...(record.approval!.revoked ?? []), revoked];
      return { ...permission, revoked: { at: revoked.at, ...(request.by ? { by: request.by } : {}) } };
    }),
    {
      // Refused here, an unknown id leaves no history.
      validator: (request) => {
        const id = typeof request?.permissionId === "string" ? request.permissionId : "";
        const by = request?.by as unknown;
        if (by !== undefined && (typeof by !== "object" || by === null || typeof (by as { id?: unknown }).id !== "string" || plainJsonProblem(by) !== undefined)) {
          throw new PermissionNotFoundError({ permissionId: id.slice(0, 200), runId: "this run or thread" }).toFailure();
        }
        if (!livePermissions(records(), Date.now()).some((p) => p.permissionId === id)) {
          throw new PermissionNotFoundError({ permissionId: id.slice(0, 200), runId: "this run or thread" }).toFailure();
        }
      },
    },
  );
}
