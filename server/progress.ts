/**
 * A progress bar on stderr: redrawn in place on a terminal, a line every few seconds
 * otherwise. Never writes to stdout (stdout carries MCP messages in stdio mode).
 *
 * @module
 */
import type { IndexProgress } from "../shelf/indexer.ts";

const enc = new TextEncoder();
const write = (s: string) => Deno.stderr.writeSync(enc.encode(s));

/** A progress bar for indexing. */
export function progressBar(label: string, unit = "files"): {
  update: (p: IndexProgress) => void;
  done: (summary: string) => void;
} {
  const tty = Deno.stderr.isTerminal();
  const start = performance.now();
  let last = 0;
  const line = (p: IndexProgress) => {
    const secs = (performance.now() - start) / 1000;
    const rate = secs > 0 ? p.done / secs : 0;
    const pct = p.total ? p.done / p.total : 0;
    const width = 24;
    const fill = Math.round(pct * width);
    return `${label} [${"#".repeat(fill)}${"-".repeat(width - fill)}] ${p.done}/${p.total} ` +
      `${(pct * 100).toFixed(0)}% ${rate.toFixed(0)} ${unit}/s` +
      (p.skipped ? `, ${p.skipped} skipped` : "") +
      (p.restored ? `, ${p.restored} restored to the keyword index` : "");
  };
  return {
    update(p) {
      const now = performance.now();
      if (tty && now - last > 80) {
        write(`\r\x1b[2K${line(p)}`);
        last = now;
      } else if (!tty && now - last > 5000) {
        write(`${line(p)}\n`);
        last = now;
      }
    },
    done(summary) {
      const secs = ((performance.now() - start) / 1000).toFixed(1);
      write(`${tty ? "\r\x1b[2K" : ""}${label}: ${summary} (${secs} s)\n`);
    },
  };
}
