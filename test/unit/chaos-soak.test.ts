import { createServer, createConnection, type AddressInfo, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { faultPlan } from "../../bench/chaos/fault-plan.js";
import { chaosResponder, runPrompt, threadMessage, answerFor, type ModelFault } from "../../bench/chaos/model.js";
import { startTcpProxy } from "../../bench/chaos/tcp-proxy.js";
import type { ChatMessage } from "../../src/index.js";
import type { ChatRequest } from "../../src/testing/index.js";

// The soak must be reproducible from its seed: its schedule, its workload and the model's
// faults are functions of it; and its scripted model must pick the right next step from any
// transcript a fault, a retry or a stop leaves behind.

const request = (conversation: string, messages: ChatMessage[], attempt = 0): ChatRequest => ({
  model: "chaos-model",
  messages: [{ role: "user", content: conversation }, ...messages],
  conversation,
  turn: messages.filter((m) => m.role === "assistant").length,
  attempt,
  params: {},
});
const call = (id: string, name: string, args: object): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: "tool", tool_call_id: id, content });

describe("the chaos soak's plan", () => {
  it("draws the same faults from the same seed, and others from another", () => {
    expect(faultPlan(42, 180)).toEqual(faultPlan(42, 180));
    expect(faultPlan(42, 180)).not.toEqual(faultPlan(43, 180));
    const plan = faultPlan(42, 180);
    expect(plan.length).toBeGreaterThanOrEqual(6);
    expect(plan.every((f, i) => f.atSec < 170 && (i === 0 || f.atSec - plan[i - 1]!.atSec >= 10))).toBe(true);
  });

  it("breaks the same model requests for the same seed, and never a third attempt", () => {
    const faults = (seed: number, attempt: number) => {
      const seen: ModelFault[] = [];
      const respond = chaosResponder({ seed, faultRate: 0.5, hangMs: 20_000, onFault: (kind) => seen.push(kind) });
      for (let i = 0; i < 200; i++) respond(request(runPrompt(`run-${i}`, "gated", 5), [], attempt));
      return seen;
    };
    expect(faults(1, 0)).toEqual(faults(1, 0));
    expect(faults(1, 0)).not.toEqual(faults(2, 0));
    expect(faults(1, 0).length).toBeGreaterThan(60);
    expect(new Set(faults(1, 0))).toEqual(new Set(["500", "429", "timeout", "cut", "malformed", "slow"]));
    expect(faults(1, 2)).toEqual([]);
  });
});

describe("the chaos soak's model", () => {
  const respond = chaosResponder({ seed: 1, faultRate: 0, hangMs: 0, onFault: () => undefined });
  const tools = (step: ReturnType<typeof respond>) => step.toolCalls?.map((c) => c.name);

  it("walks a gated payout: lookup, payout, answer; asks again after arguments it got wrong", () => {
    const prompt = runPrompt("r1", "gated", 7);
    expect(tools(respond(request(prompt, [])))).toEqual(["lookup"]);
    const looked = [call("a", "lookup", { account: "x" }), result("a", "balance: x")];
    expect(tools(respond(request(prompt, looked)))).toEqual(["sendPayout"]);
    const malformed = [...looked, call("b", "sendPayout", {}), result("b", 'Error: the arguments for "sendPayout" are not valid JSON')];
    expect(tools(respond(request(prompt, malformed)))).toEqual(["sendPayout"]);
    expect(respond(request(prompt, [...looked, call("c", "sendPayout", { amount: 7 }), result("c", "sent 7")])).text).toBe("paid");
    expect(respond(request(prompt, [...looked, call("c", "sendPayout", { amount: 7 }), result("c", 'Rejected by approver: "sendPayout" was not run.')])).text).toBe("rejected");
  });

  it("walks a deferral: transfers only after a yes", () => {
    const prompt = runPrompt("r2", "deferral", 9);
    const looked = [call("a", "lookup", { account: "x" }), result("a", "balance: x")];
    expect(tools(respond(request(prompt, looked)))).toEqual(["askApproval"]);
    const yes = [...looked, call("b", "askApproval", { amount: 9 }), result("b", '{"approved":true}')];
    expect(tools(respond(request(prompt, yes)))).toEqual(["transfer"]);
    const no = [...looked, call("b", "askApproval", { amount: 9 }), result("b", '{"approved":false}')];
    expect(respond(request(prompt, no)).text).toBe("not approved");
  });

  it("answers a thread's last message, after the tool it asks for", () => {
    const first = threadMessage("t1", 0, "plain");
    expect(respond(request(first, [])).text).toBe(answerFor(first));
    const second = threadMessage("t1", 1, "manager");
    const history: ChatMessage[] = [{ role: "assistant", content: answerFor(first) }, { role: "user", content: second }];
    expect(tools(respond(request(first, history)))).toEqual(["askManager"]);
    const answered = [...history, call("m", "askManager", { question: "?" }), result("m", '{"answer":"yes"}')];
    expect(respond(request(first, answered)).text).toBe(answerFor(second));
  });
});

describe("the chaos soak's TCP proxy", () => {
  it("passes bytes through, and drop() resets open connections and refuses new ones for a while", async () => {
    // The reset reaches the echo side too: its sockets ignore it.
    const echo = createServer((socket) => socket.on("error", () => undefined).pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const proxy = await startTcpProxy(`127.0.0.1:${(echo.address() as AddressInfo).port}`);
    const connect = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const [host, port] = proxy.address.split(":");
        const socket = createConnection({ host, port: Number(port) }, () => resolve(socket)).once("error", reject);
      });
    const roundTrip = (socket: Socket, text: string): Promise<string> =>
      new Promise((resolve) => {
        socket.once("data", (data) => resolve(data.toString()));
        socket.write(text);
      });
    const ended = (socket: Socket): Promise<void> => new Promise((resolve) => socket.once("close", () => resolve()).once("error", () => undefined));
    try {
      const socket = await connect();
      expect(await roundTrip(socket, "hello")).toBe("hello");
      const closed = ended(socket);
      expect(proxy.drop(60_000)).toBeGreaterThanOrEqual(2);
      await closed;
      // Refused: reset before or right after the handshake, never served.
      const refused = await connect().then(
        (socket) => ended(socket).then(() => "closed"),
        (err: NodeJS.ErrnoException) => err.code,
      );
      expect(["closed", "ECONNRESET"]).toContain(refused);
      proxy.drop(0);
      const again = await connect();
      expect(await roundTrip(again, "back")).toBe("back");
      again.destroy();
    } finally {
      await proxy.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});
