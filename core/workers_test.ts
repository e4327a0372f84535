import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import {
  type Connect,
  threadChannel,
  WorkerError,
  WorkerPool,
  type WorkerPoolOptions,
} from "./workers.ts";
import { answer } from "./worker_protocol.ts";
import type { Ask } from "./testdata/echo_worker.ts";

const URL_ = new URL("./testdata/echo_worker.ts", import.meta.url);

function pool(opts: Partial<WorkerPoolOptions<string>> = {}): WorkerPool<Ask, unknown, string> {
  return new WorkerPool({ name: "test worker", connect: threadChannel(URL_), ...opts });
}

/** The failure of a request that must fail. */
async function failure(p: Promise<unknown>): Promise<WorkerError> {
  const e = await assertRejects(() => p);
  assert(e instanceof WorkerError, String(e));
  return e;
}

Deno.test("WorkerPool: a worker starts, answers requests by id, and passes on what it throws", async () => {
  const p = pool();
  try {
    const [a, b] = await Promise.all([
      p.request({ op: "echo", value: { list: [1, "two"] } }),
      p.request({ op: "echo", value: 3 }),
    ]);
    assertEquals([a, b], [{ list: [1, "two"] }, 3]);
    const who = await p.request({ op: "who" });
    const e = await failure(p.request({ op: "throw" }));
    assertEquals([e.kind, e.message, e.remote?.code, e.remote?.hint], [
      "failed",
      "bad request",
      "E_BAD",
      "ask better",
    ]);
    // A thrown error does not cost the worker.
    assertEquals(await p.request({ op: "who" }), who);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: past the time limit the request fails with timeout and the worker is replaced", async () => {
  const p = pool({ timeoutMs: 200 });
  try {
    const first = await p.request({ op: "who" });
    const e = await failure(p.request({ op: "hang" }));
    assertEquals(e.kind, "timeout");
    const second = await p.request({ op: "who" });
    assert(second !== first);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: a crash fails the request it held, and a new worker takes the next", async () => {
  const p = pool();
  try {
    const first = await p.request({ op: "who" });
    const e = await failure(p.request({ op: "crash" }));
    assertEquals(e.kind, "crashed");
    assert(e.message.startsWith("test worker stopped: "), e.message);
    assert(await p.request({ op: "who" }) !== first);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: requests go to the least busy of N workers", async () => {
  const p = pool({ size: 2, perWorker: Infinity });
  try {
    await p.start();
    // Sent together: the first busies one worker, so the second goes to the other.
    const [a, b] = await Promise.all([p.request({ op: "who" }), p.request({ op: "who" })]);
    assert(a !== b);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: one request at a time per worker by default; the others wait their turn", async () => {
  const p = pool({ size: 1, timeoutMs: 200 });
  try {
    const hang = failure(p.request({ op: "hang" }));
    const echo = p.request({ op: "echo", value: "after" });
    assertEquals((await hang).kind, "timeout");
    assertEquals(await echo, "after");
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: a worker that fails to start, or never gets ready, fails the waiting requests", async () => {
  for (const opts of [{ init: "refuse" }, { init: "never", startMs: 200, startAttempts: 2 }]) {
    const p = pool(opts);
    try {
      const e = await failure(p.request({ op: "who" }));
      assertEquals(e.kind, "start");
      // The next request tries a fresh worker (which fails the same way).
      assertEquals((await failure(p.request({ op: "who" }))).kind, "start");
      await assertRejects(() => p.start());
    } finally {
      p.close();
    }
  }
});

Deno.test("WorkerPool: close fails what is in flight or waiting; a later request starts again", async () => {
  const p = pool();
  const hang = failure(p.request({ op: "hang" }));
  const waiting = failure(p.request({ op: "who" }));
  await p.start();
  p.close();
  assertEquals([(await hang).kind, (await waiting).kind], ["closed", "closed"]);
  try {
    assertEquals(await p.request({ op: "echo", value: 1 }), 1);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: failures are mapped to the caller's errors", async () => {
  const p = pool({ error: (e) => new RangeError(`mapped ${e.kind}`) });
  try {
    const e = await assertRejects(() => p.request({ op: "throw" }));
    assert(e instanceof RangeError);
    assertEquals(e.message, "mapped failed");
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: any channel plugs in, such as one answering in this thread", async () => {
  let terminated = 0;
  const inThread: Connect = (events) => {
    const handle = answer(
      { handle: (n: number) => n * 2 },
      (a) => queueMicrotask(() => events.message(a)),
    );
    return { post: (m) => void handle(m), terminate: () => void terminated++ };
  };
  const p = new WorkerPool<number, number>({ name: "doubler", connect: inThread, size: 3 });
  assertEquals(await Promise.all([1, 2, 3].map((n) => p.request(n))), [2, 4, 6]);
  p.close();
  assert(terminated >= 1);
});

Deno.test("WorkerPool: with idleMs, workers leave when there is no work and come back for more", async () => {
  const p = pool({ size: 2, idleMs: 50 });
  try {
    const first = await p.request({ op: "who" });
    assertEquals(p.workers, 1, "one request starts one worker");
    for (let i = 0; i < 200 && p.workers > 0; i++) await new Promise((r) => setTimeout(r, 25));
    assertEquals(p.workers, 0);
    const second = await p.request({ op: "who" });
    assert(second !== first, "a new worker answered");
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: hold keeps idle workers past idleMs until released", async () => {
  const p = pool({ size: 2, idleMs: 50 });
  try {
    const release = p.hold();
    const first = await p.request({ op: "who" });
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(p.workers, 1, "held: the idle worker stays");
    assertEquals(await p.request({ op: "who" }), first, "the same worker answers");
    release();
    release(); // a second call changes nothing
    for (let i = 0; i < 200 && p.workers > 0; i++) await new Promise((r) => setTimeout(r, 25));
    assertEquals(p.workers, 0, "released: it leaves after idleMs");
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: idle lists the ready workers without a request", async () => {
  const p = pool({ size: 2 });
  try {
    await p.start();
    assertEquals(p.idle().length, 2);
    const hang = p.request({ op: "hang" }).catch((e) => e);
    assertEquals(p.idle().length, 1, "the busy one is not idle");
    p.close();
    assert((await hang) instanceof WorkerError);
    assertEquals(p.idle(), []);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: retire stops a worker after its last request; the next request starts another", async () => {
  let retire = false;
  const p = pool({ retire: () => retire });
  try {
    const a = await p.request({ op: "who" });
    assertEquals(await p.request({ op: "who" }), a);
    retire = true;
    assertEquals(await p.request({ op: "who" }), a);
    assertEquals(p.workers, 0);
    retire = false;
    assert(await p.request({ op: "who" }) !== a);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: stopIdle stops the workers without a request and leaves a busy one", async () => {
  const p = pool({ size: 2 });
  try {
    await p.start();
    assertEquals(p.workers, 2);
    const hang = p.request({ op: "hang" }).catch((e) => e);
    assertEquals(p.stopIdle(), 1, "the idle one");
    assertEquals(p.workers, 1, "the busy one stays");
    assertEquals(p.stopIdle(), 0);
    p.close();
    assert((await hang) instanceof WorkerError);
  } finally {
    p.close();
  }
});

Deno.test("WorkerPool: stopIdle(1) keeps the first idle worker, which takes the next request", async () => {
  const p = pool({ size: 3 });
  try {
    await p.start();
    const first = await p.request({ op: "who" });
    assertEquals(p.stopIdle(1), 2);
    assertEquals(p.workers, 1);
    assertEquals(await p.request({ op: "who" }), first, "the kept worker answers");
  } finally {
    p.close();
  }
});
