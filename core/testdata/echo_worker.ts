/**
 * A tiny worker for `core/workers_test.ts`: says who it is, echoes, throws, never answers,
 * or crashes, as asked; started with `refuse` it fails to start, with `never` it never
 * becomes ready.
 *
 * @module
 */
import { serveThread } from "../worker_protocol.ts";

/** What the test asks. */
export type Ask =
  | { op: "echo"; value: unknown }
  | { op: "who" }
  | { op: "throw" }
  | { op: "hang" }
  | { op: "crash" };

/** This worker, told apart from its replacements. */
const me = crypto.randomUUID();

serveThread<string | undefined, Ask, unknown>({
  start(init) {
    if (init === "refuse") throw new Error("refused to start");
    if (init === "never") return new Promise(() => {});
  },
  handle(ask) {
    switch (ask.op) {
      case "echo":
        return ask.value;
      case "who":
        return me;
      case "throw":
        throw Object.assign(new Error("bad request"), { code: "E_BAD", hint: "ask better" });
      case "hang":
        return new Promise(() => {});
      case "crash":
        setTimeout(() => {
          throw new Error("boom");
        });
        return new Promise(() => {});
    }
  },
});
