/**
 * The one line `read` and `outline` show for a document extracted only in part.
 *
 * @module
 */
import type { Card } from "../../core/types.ts";
import { allowanceAfter, MAX_ATTEMPTS } from "../../shelf/indexer.ts";
import { escapeControl } from "../tool.ts";

/**
 * A short line saying that a document was extracted only in part, where its extractor
 * stopped and why, and whether the next index run tries again (with more time) or the
 * document waits for its file to change; undefined for a whole document.
 *
 * @param card the document's card
 * @returns the line, or undefined
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Card } from "../../core/types.ts";
 * const card = {
 *   partial: "time limit",
 *   warnings: ["extraction stopped at page 242 of 2415 (time limit)"],
 * } as Card;
 * assert.equal(
 *   partialNote(card),
 *   "Partial (time limit): extraction stopped at page 242 of 2415 (time limit); the rest " +
 *     "is not indexed yet, the next index run extracts it again.",
 * );
 * assert.equal(
 *   partialNote({ ...card, attempts: 4 }),
 *   "Partial (time limit): extraction stopped at page 242 of 2415 (time limit); the rest " +
 *     "is not indexed: cut at 8x the time limit, not tried again until the file changes.",
 * );
 * assert.equal(partialNote({ warnings: ["decoded as Latin-1"] } as Card), undefined);
 * ```
 */
export function partialNote(
  card: Pick<Card, "partial" | "warnings" | "attempts">,
): string | undefined {
  if (!card.partial) return undefined;
  const where = card.warnings?.length ? `: ${card.warnings.join("; ")}` : "";
  const rest = (card.attempts ?? 1) < MAX_ATTEMPTS
    ? "the rest is not indexed yet, the next index run extracts it again."
    : `the rest is not indexed: cut at ${
      allowanceAfter(MAX_ATTEMPTS - 1)
    }x the time limit, not tried again until the file changes.`;
  return escapeControl(`Partial (${card.partial})${where}; ${rest}`);
}
