/**
 * An example extractor plugin: CSV files become a Markdown table, one row per line, with
 * the header as the document's single heading. Load it with
 * `shelfmark index ~/Data --extractor ./examples/csv.ts` or list it under `"extractors"` in
 * `shelfmark.json`.
 *
 * @module
 */
import { ExtractError, type Extractor } from "../plugin.ts";

/** Split one CSV record (RFC 4180 quoting: `"a, b"` and `""` inside quotes). */
export function splitCsv(line: string): string[] {
  const cells: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      cells.push(cur);
      cur = "";
    } else cur += ch;
  }
  cells.push(cur);
  return cells.map((c) => c.trim().replaceAll("|", "\\|"));
}

const csv: Extractor = {
  name: "csv",
  extensions: [".csv"],
  priority: 0,
  extract({ bytes }) {
    const text = new TextDecoder().decode(bytes).replace(/\r\n?/g, "\n").trimEnd();
    if (!text) return Promise.reject(new ExtractError("empty", "file is empty"));
    const rows = text.split("\n").map(splitCsv);
    const header = rows[0]!;
    const lines = [
      `| ${header.join(" | ")} |`,
      `| ${header.map(() => "---").join(" | ")} |`,
      ...rows.slice(1).map((r) => `| ${r.join(" | ")} |`),
    ];
    return Promise.resolve({
      lines,
      headings: [{ level: 1, title: header.join(", "), line: 1 }],
      outlineQuality: "medium",
      meta: { title: header.join(", ") },
    });
  },
};

export default csv;
