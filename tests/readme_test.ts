/**
 * The README's commands, as written: the demo, and the MCP Inspector examples that start a
 * server on the bundled samples (they need `npx`, which fetches the Inspector from npm).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { hasCommand } from "./have.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = await Deno.readTextFile(join(repo, "README.md"));

/** The Inspector commands of the README that start their own server (continuations joined). */
function inspectorCommands(): string[] {
  const joined = readme.replace(/\\\n\s*/g, "");
  return joined.split("\n").filter((l) =>
    l.startsWith("npx @modelcontextprotocol/inspector --cli deno run")
  );
}

async function run(cmd: string, home: string) {
  const out = await new Deno.Command("bash", {
    args: ["-c", cmd],
    cwd: repo,
    env: {
      SHELFMARK_HOME: home,
      SHELFMARK_EMBEDDER: "none",
      npm_config_yes: "true",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

const npx = await hasCommand("npx");

Deno.test({
  name: "README: the Inspector examples answer from the bundled samples, as written" +
    (npx ? "" : " (ignored: npx is not installed)"),
  ignore: !npx,
  fn: async () => {
    const cmds = inspectorCommands();
    assertEquals(cmds.length, 3, cmds.join("\n"));
    const home = await Deno.makeTempDir({ prefix: "shelfmark-readme-" });
    try {
      const answers: string[] = [];
      for (const c of cmds) {
        const r = await run(c, home);
        assertEquals(r.code, 0, `${c}\n${r.stderr}`);
        answers.push(r.stdout);
      }
      assertMatch(answers[0]!, /"name": "search"/);
      const searchText = JSON.parse(answers[1]!).content[0].text as string;
      assertMatch(searchText, /samples\/sqlite\/sqlar\.html/);
      assert(!/index=building/.test(searchText), searchText);
      const readText = JSON.parse(answers[2]!).content[0].text as string;
      assertMatch(readText, /Advantages Of SQLite Archives/);
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test("README: deno task demo runs search -> outline -> read -> grep on the samples", async () => {
  const home = await Deno.makeTempDir({ prefix: "shelfmark-demo-" });
  try {
    const r = await run("deno task demo", home);
    assertEquals(r.code, 0, r.stderr);
    assertMatch(r.stdout, /Indexed \d+ sample documents/);
    assertMatch(r.stdout, /\$ shelfmark grep/);
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
