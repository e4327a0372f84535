/**
 * Debian's Chromium driven by playwright-core, for the web page's tests and benchmark
 * (`npx playwright install` cannot download a browser here).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { noteMissing } from "./have.ts";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether Debian's chromium is missing (then noted, naming the test file `test`): for
 * `Deno.test({ ignore })` of a browser test.
 */
export function chromiumMissing(test: string): boolean {
  return noteMissing(
    !existsSync(CHROMIUM),
    `${test}: ${CHROMIUM} is missing (apt-get install -y chromium)`,
  );
}

/** Chromium headless, without the background traffic that floods a closed network. */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
