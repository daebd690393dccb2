/**
 * The bare resume workflow's updates, shared by the workflow and the bench that drives it
 * (a module with no activity proxies, so it loads outside the sandbox too).
 */
import { defineUpdate } from "@temporalio/workflow";

/** Lands the deferred tool call's result (the resume payload, as text): the bare resume. */
export const approveUpdate = defineUpdate<void, [string]>("bare.approve");
/** Answers once the run waits for `approve`, as the SDK's settled update answers a deferral. */
export const parkedUpdate = defineUpdate<void>("bare.parked");
/** Does nothing: the pure update round trip. */
export const pingUpdate = defineUpdate<void>("bare.ping");
/** A chat's next user message; answers once the turn it starts is done. */
export const sayUpdate = defineUpdate<void, [string]>("bare.say");
/** Answers once the chat has done this many turns. */
export const chatTurnsUpdate = defineUpdate<void, [number]>("bare.chatTurns");
