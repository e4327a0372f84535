/**
 * The web page's status view in a real browser (Debian's chromium, playwright-core) lists
 * the documents the time limit cut short, each with where it stopped and what the next
 * run does: one tried again with more time, and one whose retry the hard limit stopped
 * (listed there, not among the skipped files, as `status` lists it). The partial documents
 * are made by a plugin that does not depend on the machine's speed (`partial_docs.ts`).
 */
import { assert, assertEquals } from "./assert.ts";
import { chromiumMissing, launchChromium } from "./browser.ts";
import { openTestShelf } from "./shelf_helper.ts";
import { PAGES_WALL_MS, partialData } from "./partial_docs.ts";
import { serveHttp } from "../server/http.ts";

const noChromium = chromiumMissing("web_partial_test");

Deno.test({
  name: "web page status: documents cut short by the time limit, a stopped retry included",
  ignore: noChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "shelfmark-web-partial-" });
    const { data, folders } = await partialData(base);
    await using t = await openTestShelf({ base, data, folders });
    const http = serveHttp(t.shelf, { port: 0 });
    const site = http.url.replace(/\/mcp$/, "");
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
      page.setDefaultTimeout(0); // no wall-clock limits in tests
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${site}/?view=status`);
      // The view is drawn at once: the skipped files' heading means the rest is there too.
      await page.waitForSelector("main h3:has-text('Skipped files')");
      // Read at once (no waiting for an element that may be missing).
      const headings = await page.locator("main h3").allTextContents();
      assert(headings.includes("Extracted in part, time limit (2)"), headings.join(" | "));
      assert(headings.includes("Skipped files (0)"), "listed once: not also as skipped");
      const rows = await page.locator("main table.partial tr").evaluateAll((trs) =>
        trs.slice(1).map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))
      );
      assertEquals(rows, [
        [
          "Cut/b.pages",
          "stopped at page 2 of 20",
          "extracted again with more time by the next index run",
        ],
        [
          "Stopped/a.pages",
          "stopped at page 2 of 20",
          `its retry with more time was stopped: extraction ran longer than ${
            2 * PAGES_WALL_MS
          } ms (2x the time limit); tried again by the next index run with 4x the time`,
        ],
      ]);
      assert(!(await page.locator("main").innerText()).includes("timeout"), "no skipped row");
      assertEquals(errors, [], "no script error on the page");
    } finally {
      await browser.close();
      await http.shutdown();
    }
  },
});
