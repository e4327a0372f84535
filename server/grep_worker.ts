/**
 * Worker that runs a grep, so a catastrophic regular expression can be stopped by
 * terminating the worker instead of hanging the server.
 *
 * @module
 */
import { serveThread } from "../core/workers.ts";

/** A grep job. */
export interface GrepJob {
  source: string;
  flags: string;
  text: string;
  before: number;
  after: number;
  offset: number;
  limit: number;
  countOnly: boolean;
}

/** One match with its context. */
export interface GrepMatch {
  line: number;
  text: string;
  before: string[];
  after: string[];
}

/** A grep result. */
export interface GrepResult {
  total: number;
  matches: GrepMatch[];
}

const MAX_LINE = 500;
const clip = (s: string) => (s.length > MAX_LINE ? s.slice(0, MAX_LINE) + "…" : s);

/** Run a job (exported for direct testing). */
export function runGrep(job: GrepJob): GrepResult {
  const re = new RegExp(job.source, job.flags);
  const lines = job.text.split("\n");
  const matches: GrepMatch[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    re.lastIndex = 0;
    if (!re.test(lines[i]!)) continue;
    total++;
    if (job.countOnly || total <= job.offset || matches.length >= job.limit) continue;
    matches.push({
      line: i + 1,
      text: clip(lines[i]!),
      before: lines.slice(Math.max(0, i - job.before), i).map(clip),
      after: lines.slice(i + 1, i + 1 + job.after).map(clip),
    });
  }
  return { total, matches };
}

serveThread({ handle: runGrep });
