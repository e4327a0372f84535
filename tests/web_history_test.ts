/// <reference lib="dom" />
/**
 * The web page's history panel, in a real browser (Debian's chromium): a document of a git
 * library shows the commits that touched it, newest first; a document of a library that is
 * not a repository shows no panel.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { CHROMIUM, launchChromium } from "./browser.ts";
import { startHttpServer } from "./cli_helper.ts";
import { repos } from "./git_fixture.ts";
import { noteMissing } from "./have.ts";
import { git } from "../shelf/git.ts";

const noChromium = noteMissing(
  !existsSync(CHROMIUM),
  `web_history_test: ${CHROMIUM} is missing (apt-get install -y chromium)`,
);

Deno.test({
  name: "web page: a git library's document shows its commits; other documents show none",
  ignore: noChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { dir, a } = await repos();
    await Deno.writeTextFile(join(a, "notes/a.md"), "# A\n\none\nedited\n");
    await git(a, ["commit", "-q", "-am", "edit a <b>bold</b>"]);
    const plain = join(dir, "plain");
    await Deno.mkdir(plain);
    await Deno.writeTextFile(join(plain, "p.md"), "# Plain\n\ntext\n");
    const server = await startHttpServer(
      [a, plain, "--data", join(dir, "db"), "--no-watch"],
      { SHELFMARK_EMBEDDER: "none" },
    );
    const site = server.url.replace(/\/mcp$/, "");
    const browser = await launchChromium();
    try {
      const info = await (await fetch(`${site}/api/info`)).json();
      assertEquals(info.git, ["a"]);
      const page = await browser.newPage();
      page.setDefaultTimeout(0); // no wall-clock limits in tests
      await page.goto(`${site}/?doc=${encodeURIComponent("a/notes/a.md")}`);
      await page.waitForSelector("#history li");
      const items = await page.$$eval("#history li", (els) => els.map((e) => e.textContent));
      assertEquals(items.length, 2);
      assert(items[0]!.includes("Ann: edit a <b>bold</b>"), items[0]!);
      assert(items[1]!.includes("first"), items[1]!);
      assertEquals(await page.$$eval("#history b", (els) => els.length), 0, "subject as text");

      await page.goto(`${site}/?doc=${encodeURIComponent("plain/p.md")}`);
      await page.waitForSelector("#links h3");
      assertEquals(await page.$eval("#history", (e) => (e as HTMLElement).hidden), true);
    } finally {
      await browser.close();
      server.child.kill();
      await server.child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
