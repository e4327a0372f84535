/**
 * Debian's Chromium driven by playwright-core, for the web page's tests and benchmark
 * (`npx playwright install` cannot download a browser here).
 *
 * @module
 */
import { type Browser, chromium } from "playwright-core";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

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
