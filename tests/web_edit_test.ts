/// <reference lib="dom" />
/**
 * The web page's Markdown editor in a real browser (Debian's chromium, playwright-core)
 * against `serve --http --token ... --write LIBRARY`: the document view offers "Edit" for a
 * Markdown file of the writable library only; a save sends the version `read` gave
 * (`if_match`) and changes the file; when the file changed on disk meanwhile the save is
 * refused with CONFLICT, the text typed stays in the editor, the file keeps the other
 * change, and "Overwrite with my text" then saves it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { assert, assertEquals } from "./assert.ts";
import { CHROMIUM, launchChromium } from "./browser.ts";
import { ready, startHttpServer } from "./cli_helper.ts";
import { noteMissing } from "./have.ts";

const noChromium = noteMissing(
  !existsSync(CHROMIUM),
  `web_edit_test: ${CHROMIUM} is missing (apt-get install -y chromium)`,
);
const TOKEN = "edit-test-token-0123456789";

/** Call a tool over the page's API, with the token. */
async function api(site: string, tool: string, args: Record<string, unknown>) {
  const r = await fetch(`${site}/api/tools/${tool}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(args),
  });
  return await r.json();
}

Deno.test({
  name: "web page editor: edit and save with if_match; a conflict keeps the text typed",
  ignore: noChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-edit-" });
    const notes = join(base, "notes");
    const other = join(base, "other");
    for (const d of [notes, other]) await Deno.mkdir(d);
    const file = join(notes, "otters.md");
    await Deno.writeTextFile(file, "# Otters\n\nOtters hold hands while they sleep.\n");
    await Deno.writeTextFile(join(other, "seals.md"), "# Seals\n\nSeals sleep in water.\n");
    const server = await startHttpServer(
      [
        notes,
        other,
        "--data",
        join(base, "db"),
        "--no-watch",
        "--token",
        TOKEN,
        "--write",
        "notes",
      ],
      { SHELFMARK_EMBEDDER: "none" },
    );
    const site = server.url.replace(/\/mcp$/, "");
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    page.setDefaultTimeout(0); // no wall-clock limits in tests
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      await ready(site);
      const otters = (await api(site, "read", { doc_id: "notes/otters.md" })).doc_id as string;
      const seals = (await api(site, "read", { doc_id: "other/seals.md" })).doc_id as string;
      await page.goto(`${site}/#token=${TOKEN}`);

      await t.step("no Edit button outside the writable library", async () => {
        await page.goto(`${site}/?doc=${seals}`);
        await page.waitForSelector("#reader .line");
        // The button is added after /api/info answers: wait for the page to settle.
        await page.waitForLoadState("networkidle");
        assertEquals(await page.locator("#edit").count(), 0);
      });

      await t.step("edit and save: the file changes, the version moves on", async () => {
        await page.goto(`${site}/?doc=${otters}`);
        await page.locator("#edit").click();
        await page.waitForFunction(() =>
          (document.querySelector("#editor") as HTMLTextAreaElement)?.value.includes("Otters")
        );
        const v1 = await page.locator("#editor").getAttribute("data-version");
        assert(v1 && /^[0-9a-f]{16}$/.test(v1), `version ${v1}`);
        await page.fill("#editor", "# Otters\n\nOtters hold hands. Edited in the page.\n");
        await page.locator("#save").click();
        await page.waitForSelector("#edit-status:has-text('Saved')");
        assertEquals(
          await Deno.readTextFile(file),
          "# Otters\n\nOtters hold hands. Edited in the page.\n",
        );
        const v2 = await page.locator("#editor").getAttribute("data-version");
        assert(v2 && v2 !== v1, "a new version after the save");
        // The index has it: the next search finds the new words.
        const found = await api(site, "search", { query: "edited page" });
        assertEquals(found.results[0].path, "notes/otters.md");
      });

      await t.step("a change on disk meanwhile: CONFLICT, nothing lost", async () => {
        const outside = "# Otters\n\nChanged by someone else.\n";
        await Deno.writeTextFile(file, outside);
        const mine = "# Otters\n\nMy second edit.\n";
        await page.fill("#editor", mine);
        await page.locator("#save").click();
        await page.waitForSelector("#edit-status .error:has-text('CONFLICT')");
        assertEquals(await page.locator("#editor").inputValue(), mine, "the text typed stays");
        assertEquals(await Deno.readTextFile(file), outside, "the other change stays");
        await page.waitForSelector("#edit-theirs pre:has-text('Changed by someone else')");
        await page.locator("#overwrite").click();
        await page.waitForSelector("#edit-status:has-text('Saved')");
        assertEquals(await Deno.readTextFile(file), mine);
      });
      await t.step(
        "fetch over the page's API: token needed, private addresses refused",
        async () => {
          const none = await fetch(`${site}/api/tools/fetch`, {
            method: "POST",
            body: JSON.stringify({ url: "https://example.org/" }),
          });
          assertEquals(none.status, 401);
          await none.body?.cancel();
          const meta = await api(site, "fetch", {
            url: "http://169.254.169.254/latest/meta-data/",
          });
          assertEquals(meta.error.code, "NOT_ALLOWED");
        },
      );
      assertEquals(errors, []);
    } finally {
      await browser.close();
      server.child.kill();
      await server.child.status;
      await Deno.remove(base, { recursive: true }).catch(() => {});
    }
  },
});
