import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";

/** Custom search attributes the SDK writes; the dev server helper registers them. */
export const AgentIdKey = defineSearchAttributeKey("AgentId", SearchAttributeType.KEYWORD);
export const DeferralStatusKey = defineSearchAttributeKey("DeferralStatus", SearchAttributeType.KEYWORD);
export const DeferralIdKey = defineSearchAttributeKey("DeferralId", SearchAttributeType.KEYWORD);
export const DeferralExpiresAtKey = defineSearchAttributeKey("DeferralExpiresAt", SearchAttributeType.DATETIME);
