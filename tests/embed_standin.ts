/**
 * A local HTTP stand-in for Ollama (`POST /api/embed`) and OpenAI-compatible
 * (`POST /v1/embeddings`) embedding services. The real services cannot run on the machines
 * shelfmark is built on, so the remote embedders are tested against this: real HTTP, real
 * JSON, and a toy "multilingual model" that maps a few English, French and German words to
 * shared concepts (cat = chat = Katze) and hashes them into a 64-dimension bag of concepts.
 */

const CONCEPTS: Record<string, string> = {
  cat: "cat",
  cats: "cat",
  chat: "cat",
  chats: "cat",
  katze: "cat",
  katzen: "cat",
  dog: "dog",
  dogs: "dog",
  chien: "dog",
  chiens: "dog",
  hund: "dog",
  hunde: "dog",
  bread: "bread",
  pain: "bread",
  brot: "bread",
  bake: "bake",
  baking: "bake",
  cuire: "bake",
  backen: "bake",
  sleep: "sleep",
  sleeping: "sleep",
  dormir: "sleep",
  schlafen: "sleep",
};

/** The toy model: a unit bag-of-concepts vector of 64 dimensions. */
export function toyVector(text: string): number[] {
  const v = new Array<number>(64).fill(0);
  for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const c = CONCEPTS[w] ?? w;
    let h = 2166136261;
    for (const ch of c) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    v[h % 64]! += CONCEPTS[w] ? 3 : 0.2;
  }
  return v;
}

/** A running stand-in with what it received. */
export interface StandIn {
  /** Base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /** Request bodies and authorization headers, in order. */
  requests: { path: string; body: { model: string; input: string[] }; auth: string | null }[];
  /** While true, requests wait (to observe "vectors pending"). */
  hold: boolean;
  /** Answer every request with this HTTP status instead (to test failures). */
  failWith?: number;
  /** Stop the server. */
  close(): Promise<void>;
}

/** Start the stand-in on a free loopback port. */
export function startStandIn(): StandIn {
  const s: StandIn = {
    url: "",
    requests: [],
    hold: false,
    close: async () => {},
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.json();
    s.requests.push({ path, body, auth: req.headers.get("authorization") });
    while (s.hold) await new Promise((r) => setTimeout(r, 20));
    if (s.failWith) return new Response("model not found", { status: s.failWith });
    const vectors = (body.input as string[]).map(toyVector);
    if (path === "/api/embed") return Response.json({ model: body.model, embeddings: vectors });
    if (path === "/v1/embeddings") {
      return Response.json({
        object: "list",
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding }))
          .reverse(),
        model: body.model,
      });
    }
    return new Response("not found", { status: 404 });
  });
  s.url = `http://127.0.0.1:${server.addr.port}`;
  s.close = async () => {
    s.hold = false;
    await server.shutdown();
  };
  return s;
}
