/**
 * The `onnx:` embedder on real model folders: a tiny model written by tests/onnx_tiny.ts
 * (no real one can be had here) run by the real transformers.js, checked against vectors
 * computed in the test: the dimensions, pooling over the attention mask, unit length, and the
 * query and document prefixes.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch, assertRejects } from "../tests/assert.ts";
import { runCli } from "../tests/cli_helper.ts";
import { noteMissing } from "../tests/have.ts";
import { expected, H, modelFolder } from "../tests/onnx_tiny.ts";
import { type EmbedderConfig, loadConfig } from "../core/config.ts";
import { createEmbedder } from "./mod.ts";
import { childArgs, OnnxEmbedder, TRANSFORMERS } from "./onnx.ts";
import { inspectOnnxModel } from "./_onnx_model.ts";

function assertClose(actual: Float32Array, want: number[], what: string): void {
  assertEquals(actual.length, want.length, what);
  const diff = Math.max(...want.map((w, i) => Math.abs(w - actual[i]!)));
  assert(diff < 1e-5, `${what}: differs by ${diff}`);
}

const norm = (v: Float32Array) => Math.hypot(...v);

// ---- what the folder says ----

Deno.test("inspectOnnxModel() reads weights, dimensions, prefixes, pooling and languages", () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const e5 = inspectOnnxModel(
      modelFolder(tmp, "multilingual-e5-small", { config: { hidden_size: 384 } }),
    );
    assertEquals(
      [e5.file, e5.dtype, e5.subfolder, e5.dimensions, e5.maxTokens, e5.pooling],
      ["onnx/model.onnx", "fp32", "onnx", 384, 64, "mean"],
    );
    assertEquals([e5.queryPrefix, e5.documentPrefix], ["query: ", "passage: "]);
    assertEquals([e5.multilingual, e5.multilingualFrom], [true, "name"]);
    const home = Deno.env.get("HOME");
    Deno.env.set("HOME", tmp);
    try {
      assertEquals(inspectOnnxModel("~/multilingual-e5-small").folder, e5.folder);
    } finally {
      if (home === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", home);
    }

    const q8 = { "onnx/model_quantized.onnx": new Uint8Array(1) };
    const bge = inspectOnnxModel(modelFolder(tmp, "bge-small-en-v1.5", { weights: q8 }));
    assertEquals([bge.file, bge.dtype, bge.pooling, bge.multilingual], [
      "onnx/model_quantized.onnx",
      "q8",
      "cls",
      false,
    ]);
    assertEquals([bge.queryPrefix, bge.documentPrefix], [
      "Represent this sentence for searching relevant passages: ",
      "",
    ]);

    // Named only inside config.json; weights beside config.json, with external data.
    const root = { "model.onnx": new Uint8Array(1), "model.onnx_data": new Uint8Array(1) };
    const nomic = inspectOnnxModel(
      modelFolder(tmp, "mymodel", {
        weights: root,
        config: { _name_or_path: "nomic-ai/nomic-embed-text-v1.5" },
      }),
    );
    assertEquals([nomic.file, nomic.subfolder, nomic.externalData], ["model.onnx", "", 1]);
    assertEquals([nomic.queryPrefix, nomic.documentPrefix], [
      "search_query: ",
      "search_document: ",
    ]);

    const m3 = inspectOnnxModel(
      modelFolder(tmp, "bge-m3", { config: { model_type: "xlm-roberta" } }),
    );
    assertEquals([m3.queryPrefix, m3.documentPrefix, m3.multilingual], ["", "", true]);

    // sentence-transformers' pooling file and the user's settings win over the name.
    const mini = modelFolder(tmp, "all-MiniLM-L6-v2");
    Deno.mkdirSync(join(mini, "1_Pooling"));
    Deno.writeTextFileSync(join(mini, "1_Pooling/config.json"), '{"pooling_mode_cls_token": true}');
    assertEquals(inspectOnnxModel(mini).pooling, "cls");
    const mine = inspectOnnxModel(join(tmp, "multilingual-e5-small"), {
      query_prefix: "",
      document_prefix: "doc: ",
      multilingual: false,
      pooling: "cls",
    });
    assertEquals(
      [
        mine.queryPrefix,
        mine.documentPrefix,
        mine.multilingual,
        mine.multilingualFrom,
        mine.pooling,
      ],
      ["", "doc: ", false, "config", "cls"],
    );
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("onnx: a missing folder, weights file or tokenizer is named in a one-line error", async () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const cases: [string, RegExp][] = [
      [join(tmp, "nowhere"), /no model folder at .*nowhere$/],
      [
        modelFolder(tmp, "noweights", { weights: {} }),
        /noweights has no ONNX weights \(looked for onnx\/model\.onnx/,
      ],
      [modelFolder(tmp, "notok", { skip: ["tokenizer.json"] }), /notok has no tokenizer\.json/],
      [
        modelFolder(tmp, "notokconf", { skip: ["tokenizer_config.json"] }),
        /notokconf has no tokenizer_config\.json/,
      ],
      [modelFolder(tmp, "noconf", { skip: ["config.json"] }), /noconf has no config\.json/],
    ];
    for (const [dir, re] of cases) {
      const e = await assertRejects(() =>
        Promise.resolve().then(() => createEmbedder(`onnx:${dir}`))
      );
      assertMatch(e.message, re);
      assert(e.message.includes(dir), e.message);
    }
    // From the command line: the message, no stack trace, nothing saved.
    const data = join(tmp, "data");
    // A data folder that holds a configuration (status refuses a folder with no index).
    Deno.mkdirSync(data);
    Deno.writeTextFileSync(join(data, "shelfmark.json"), "{}\n");
    const r = await runCli(["status", "--data", data, "--embedder", `onnx:${join(tmp, "notok")}`]);
    assertEquals(r.code, 1);
    assertMatch(r.stderr, /^error: onnx embedder: .*notok has no tokenizer\.json/m);
    assert(!/^\s+at /m.test(r.stderr), r.stderr);
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("shelfmark.json takes onnx:<folder> with prefixes and pooling, and refuses bad values", () => {
  const tmp = Deno.makeTempDirSync();
  const withEmbedder = (embedder: unknown) => {
    Deno.writeTextFileSync(join(tmp, "shelfmark.json"), JSON.stringify({ embedder }));
    return () => loadConfig(tmp);
  };
  try {
    const cfg: EmbedderConfig = {
      name: "onnx:/m/My Models/e5",
      query_prefix: "query: ",
      document_prefix: "",
      pooling: "cls",
    };
    assertEquals(withEmbedder(cfg)().embedder, cfg);
    for (
      const [bad, what] of [[{ name: "onnx:/m", pooling: "max" }, "pooling"], [{
        name: "onnx:/m",
        query_prefix: 1,
      }, "query_prefix"], ["onnx:", '"embedder"']]
    ) {
      let msg = "";
      try {
        withEmbedder(bad)();
      } catch (e) {
        msg = (e as Error).message;
      }
      assert(msg.includes(what as string), msg);
    }
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("onnx: the model's process gets no network, no lock file and only the model's files", () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const m = inspectOnnxModel(modelFolder(tmp, "e5-tiny"));
    const args = childArgs("/x/deno.json", m);
    for (const flag of ["--deny-net", "--no-lock", "--no-prompt"]) {
      assert(args.includes(flag), flag);
    }
    assert(
      !args.some((a) => /^(-A|--allow-all|--allow-net|--allow-write|--allow-run)/.test(a)),
      args.join(" "),
    );
    assertEquals(
      args.find((a) => a.startsWith("--allow-read=")),
      `--allow-read=${m.readable.join(",")}`,
    );
    assert(m.readable.every((p) => p.startsWith(m.folder)), m.readable.join(","));
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

// ---- the real runtime on the tiny model ----

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
/** Whether transformers.js can be had (downloaded into Deno's cache on the first run). */
async function runtimeAvailable(): Promise<boolean> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--quiet",
      "--no-lock",
      `--config=${CONFIG}`,
      `await import(${JSON.stringify(TRANSFORMERS)})`,
    ],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => undefined);
  return out?.success === true;
}
const noRuntime = noteMissing(
  !(await runtimeAvailable()),
  `onnx embedder tests: ${TRANSFORMERS} could not be loaded (no npm registry?)`,
);

Deno.test({
  name: "OnnxEmbedder (tiny model, real transformers.js): pooled, unit-length, prefixed vectors",
  ignore: noRuntime,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const tmp = Deno.makeTempDirSync();
    const lockBefore = Deno.readTextFileSync(new URL("../deno.lock", import.meta.url));
    const e = createEmbedder(`onnx:${modelFolder(tmp, "e5-tiny")}`) as OnnxEmbedder;
    const cls = new OnnxEmbedder(join(tmp, "e5-tiny"), { pooling: "cls", query_prefix: "" });
    try {
      assert(e instanceof OnnxEmbedder);
      assertEquals([e.model, e.dimensions, e.multilingual, e.defaultMode], [
        "onnx:e5-tiny",
        H,
        false,
        "hybrid",
      ]);
      const [q] = await e.embed(["Hello world"], "query");
      assertClose(q!, expected(["[CLS]", "query", ":", "hello", "world", "[SEP]"]), "query");
      assertEquals(e.dimensions, H);
      assert(e.loaded);
      // Documents of different lengths in one batch: padding does not count.
      const docs = await e.embed(["hello", "hello world shelf books", "books"]);
      assertClose(docs[0]!, expected(["[CLS]", "passage", ":", "hello", "[SEP]"]), "document 0");
      assertClose(
        docs[1]!,
        expected(["[CLS]", "passage", ":", "hello", "world", "shelf", "books", "[SEP]"]),
        "document 1",
      );
      assertClose(docs[2]!, expected(["[CLS]", "passage", ":", "books", "[SEP]"]), "document 2");
      for (const v of [q!, ...docs]) assert(Math.abs(norm(v) - 1) < 1e-5, `length ${norm(v)}`);
      // A query goes before the rest of a long document batch; documents come back in order.
      const done: string[] = [];
      const d = e.embed(Array(10).fill("hello world")).then((v) => (done.push("documents"), v));
      const q2 = e.embed(["books"], "query").then((v) => (done.push("query"), v));
      assertEquals([(await d).length, (await q2).length, done], [10, 1, ["query", "documents"]]);
      const many = await e.embed(["hello", "world", "shelf", "books", "hello", "world"]);
      assertClose(many[5]!, Array.from(await e.embed(["world"]).then((v) => v[0]!)), "document 5");
      // The user's settings: no query prefix, first-token pooling.
      const [c] = await cls.embed(["hello world"], "query");
      assertClose(c!, expected(["[CLS]"], "cls"), "cls");
      e.close();
      assert(!e.loaded);
      // The runtime never enters the checkout's lock file.
      const lockAfter = Deno.readTextFileSync(new URL("../deno.lock", import.meta.url));
      assert(
        !lockAfter.includes("@huggingface/transformers@4"),
        "transformers.js entered deno.lock",
      );
      assertEquals(lockAfter.includes("onnxruntime-node"), lockBefore.includes("onnxruntime-node"));
    } finally {
      e.close();
      cls.close();
      Deno.removeSync(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name: "OnnxEmbedder: weights that are no ONNX model fail with the folder named, no hang",
  ignore: noRuntime,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const tmp = Deno.makeTempDirSync();
    const dir = modelFolder(tmp, "e5-broken", {
      weights: { "onnx/model.onnx": new TextEncoder().encode("not onnx") },
    });
    const e = new OnnxEmbedder(dir);
    try {
      const err = await assertRejects(() => e.embed(["hello"]));
      assertMatch(
        err.message,
        /^onnx embedder \(.*e5-broken\) failed to start: cannot load the model: /,
      );
      assert(!/^\s+at /m.test(err.message), err.message);
    } finally {
      e.close();
      Deno.removeSync(tmp, { recursive: true });
    }
  },
});
