// The collecting receiver tests wait on: `arrived(n)` settles when the nth request is in, and says
// how many arrived when it cannot.
import { afterEach, expect, it } from "vitest";
import { type CollectingReceiver, startCollectingReceiver } from "./collecting-receiver.js";

let receiver: CollectingReceiver;
afterEach(() => receiver.close());

const post = (body: string) => fetch(`${receiver.url}/hook`, { method: "POST", body });

it("resolves once the nth request is in, with every request in order", async () => {
  receiver = await startCollectingReceiver();
  const waited = receiver.arrived(2);
  await post("one");
  await post("two");
  const got = await waited;
  expect(got.map((r) => [r.method, r.path, r.body])).toEqual([
    ["POST", "/hook", "one"],
    ["POST", "/hook", "two"],
  ]);
  // Already there: resolves at once.
  expect(await receiver.arrived(1)).toBe(got);
});

it("answers as told", async () => {
  receiver = await startCollectingReceiver((_, res) => void res.writeHead(503).end());
  expect((await post("x")).status).toBe(503);
});

it("rejects past its deadline, saying how many arrived", async () => {
  receiver = await startCollectingReceiver();
  await expect(receiver.arrived(1, 1)).rejects.toThrow("0 of 1 requests arrived within 1 ms");
});

it("rejects when the receiver closes first, saying how many arrived", async () => {
  receiver = await startCollectingReceiver();
  await post("only");
  const waited = receiver.arrived(3);
  await receiver.close();
  await expect(waited).rejects.toThrow("1 of 3 requests arrived before close");
});
