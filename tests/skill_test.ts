/**
 * The Agent Skill (`skills/shelfmark/SKILL.md`) and the Claude Code plugin
 * (`.claude-plugin/`): every command the skill shows runs on an index of `samples/`, the
 * names it gives are the server's, and the plugin's command starts the server.
 */
// @ts-types="@types/shell-quote"
import { parse as parseShell } from "shell-quote";
import { parse as parseYaml } from "yaml";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { runCli } from "./cli_helper.ts";
import { stdioTransport, testClient } from "./mcp_client.ts";
import { TOOLS } from "../server/tools/mod.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SKILL_DIR = join(ROOT, "skills", "shelfmark");
const SKILL = await Deno.readTextFile(join(SKILL_DIR, "SKILL.md"));
const SAMPLES = join(ROOT, "samples");

/** The front matter and the body of a SKILL.md. */
function splitSkill(text: string): { meta: Record<string, unknown>; body: string } {
  const m = text.match(/^---\n([\s\S]*?)\n---\n([\s\S]*)$/);
  assert(m, "SKILL.md starts with a --- front matter block");
  return { meta: parseYaml(m[1]!) as Record<string, unknown>, body: m[2]! };
}

/**
 * Every command in the skill's fenced code blocks, as arguments of the CLI: `shelfmark X` and
 * `deno task cli X` both give `[X, ...]`; comments are dropped.
 */
function skillCommands(markdown: string): string[][] {
  const out: string[][] = [];
  for (const block of markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)) {
    for (const line of block[1]!.split("\n")) {
      if (!line.trim()) continue;
      const words = parseShell(line).filter((w) => !(typeof w === "object" && "comment" in w));
      assert(words.every((w) => typeof w === "string"), `a plain command: ${line}`);
      const argv = words as string[];
      const cli = argv[0] === "shelfmark"
        ? argv.slice(1)
        : argv.slice(0, 3).join(" ") === "deno task cli"
        ? argv.slice(3)
        : undefined;
      assert(cli, `a shelfmark command: ${line}`);
      out.push(cli);
    }
  }
  return out;
}

/** What each command's answer must show to be of use (beyond not being empty). */
const USEFUL: Record<string, RegExp> = {
  search: /^1\. .*\[\d+\] samples\/.*\n\s+L\d+-\d+/m,
  grep: /^\[\d+\] samples\/.*: \d+ match(es)?\n[\s\S]*^\d+: /m,
  read: /^\d+ \| \S/m,
  outline: /^\[1\] .* \[L\d+-\d+, \d+ lines/m,
  "find-documents": /^1\. \[\d+\] samples\//m,
  status: /9 of 9 documents indexed/,
};

Deno.test("SKILL.md has the front matter Agent Skills expect", () => {
  const { meta, body } = splitSkill(SKILL);
  assertEquals(meta.name, "shelfmark");
  assertMatch(String(meta.name), /^[a-z0-9]+(-[a-z0-9]+)*$/);
  const description = String(meta.description ?? "");
  assert(description.length > 50 && description.length <= 1024, description);
  assertMatch(description, /\bUse when\b/);
  assert(body.trim().length > 0);
});

Deno.test("every command SKILL.md shows runs on an index of samples/", async () => {
  const commands = skillCommands(splitSkill(SKILL).body);
  const names = new Set(commands.map((c) => c[0]));
  for (const needed of ["search", "grep", "read", "outline"]) {
    assert(names.has(needed), `the skill shows ${needed}`);
  }
  const data = await Deno.makeTempDir({ prefix: "shelfmark-skill-" });
  try {
    const idx = await runCli(["index", SAMPLES, "--data", data]);
    assertEquals(idx.code, 0, idx.stderr);
    for (const args of commands) {
      const shown = args.join(" ");
      const r = await runCli([...args, "--data", data]);
      assertEquals(r.code, 0, `${shown}: ${r.stderr}`);
      const answer = r.stdout.replace(/^\[meta\].*$/m, "").trim();
      assert(answer.length > 0, `${shown}: an answer`);
      assert(!/^No (documents|matches|results)\b/m.test(answer), `${shown}: ${answer}`);
      assert(!r.stderr.includes("error"), `${shown}: ${r.stderr}`);
      const useful = USEFUL[args[0]!];
      assert(useful, `${shown}: add what its answer must show to USEFUL`);
      assertMatch(answer, useful, shown);
    }
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

/** The tool and argument names the skill's MCP paragraph gives. */
function mcpNames(markdown: string): { tools: string[]; args: string[] } {
  const para = markdown.match(/^- \*\*MCP\*\*[\s\S]*?(?=^- |\n\n|$(?![\s\S]))/m)?.[0];
  assert(para, "the skill says how the tools are named over MCP");
  const [toolPart, argPart = ""] = para.split(/arguments/);
  const names = (s: string) => [...s.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
  return { tools: names(toolPart!), args: names(argPart) };
}

Deno.test("the MCP tools and arguments SKILL.md names are the server's", () => {
  const { tools, args } = mcpNames(SKILL);
  assert(tools.length >= 4 && args.length >= 4, `${tools} / ${args}`);
  const byName = new Map(TOOLS.map((t) => [t.name as string, t]));
  for (const t of tools) assert(byName.has(t), `no tool ${t}`);
  const known = new Set(tools.flatMap((t) => Object.keys(byName.get(t)!.input)));
  for (const a of args) assert(known.has(a), `no argument ${a} in ${tools.join(", ")}`);
});

/** Whether `command` is an executable on the PATH. */
function onPath(command: string): boolean {
  const dirs = (Deno.env.get("PATH") ?? "").split(delimiter);
  const exts = Deno.build.os === "windows" ? [".exe", ".cmd", ""] : [""];
  return dirs.some((d) => exts.some((e) => d && existsSync(join(d, command + e))));
}

Deno.test("the Claude Code plugin starts the shelfmark server over stdio", async () => {
  const plugin = JSON.parse(
    await Deno.readTextFile(join(ROOT, ".claude-plugin", "plugin.json")),
  );
  const market = JSON.parse(
    await Deno.readTextFile(join(ROOT, ".claude-plugin", "marketplace.json")),
  );
  const deno = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  assertEquals(plugin.name, "shelfmark");
  assertEquals(plugin.version, deno.version);
  assertEquals(market.plugins.map((p: { name: string }) => p.name), [plugin.name]);
  assertEquals(market.plugins[0].source, "./");

  const server = plugin.mcpServers?.shelfmark as { command: string; args: string[] };
  assert(server, "the plugin declares the shelfmark MCP server");
  assertEquals(server.command, "deno");
  assert(onPath(server.command), "deno is on the PATH");
  const args = server.args.map((a) => a.replaceAll("${CLAUDE_PLUGIN_ROOT}", ROOT.slice(0, -1)));
  for (const a of args.filter((a) => a.startsWith(ROOT))) assert(existsSync(a), `${a} exists`);
  assert(args.includes("serve"), args.join(" "));

  // Started as Claude Code starts it: from another folder, with the user's data folder.
  const home = await Deno.makeTempDir({ prefix: "shelfmark-plugin-" });
  const client = testClient("plugin-test");
  try {
    await client.connect(stdioTransport({
      command: Deno.execPath(),
      args,
      cwd: home,
      env: { SHELFMARK_HOME: home, SHELFMARK_EMBEDDER: "none" },
      stderr: "ignore",
    }));
    const listed = new Set((await client.listTools()).tools.map((t: { name: string }) => t.name));
    for (const t of mcpNames(SKILL).tools) assert(listed.has(t), `the server lists ${t}`);
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
});
