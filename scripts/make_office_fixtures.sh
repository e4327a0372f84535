#!/usr/bin/env bash
# Regenerates the office test fixtures in extractors/testdata/office/ from the shared small
# corpus (~/.cache/shelfmark/corpus-small, or $SHELFMARK_CORPUS). The fixtures are committed,
# so the tests need neither pandoc nor LibreOffice; run this only to remake them.
#
# Needs: pandoc, LibreOffice's soffice and its Python bridge (Debian: apt-get install
# --no-install-recommends libreoffice-writer-nogui libreoffice-calc-nogui
# libreoffice-impress-nogui python3-uno) and deno.
#
#   zstd-readme.odt   pandoc, from markdown/zstd/zstd/README.md (title and author in meta)
#   zstd-readme.rtf   pandoc, the same source
#   zstd-readme.pptx  pandoc, the same source, one slide per ## section, the first paragraph
#                     after each slide title moved into the speaker notes
#   zstd-readme.odp   LibreOffice, from zstd-readme.pptx
#   ja-bind.rtf       LibreOffice, from a pandoc .odt of markdown/from-html/apache2-doc/ja_bind.md
#                     (Japanese text: \uN escapes, a stylesheet with outline levels, \info)
#   tables.xlsx       LibreOffice, from a flat ODF spreadsheet of three sheets built here:
#   tables.ods          "Manual pages" (name, section, date, summary of text/man/**),
#                       "ISO 8859-14" (the character table of iso_8859-14.7.txt),
#                       "Corpus" (the corpus MANIFEST.tsv: path, library, format, bytes)
#   tables-password.ods  LibreOffice, tables.ods saved with the password "secret"
set -euo pipefail

CORPUS=${SHELFMARK_CORPUS:-$HOME/.cache/shelfmark/corpus-small}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/extractors/testdata/office
for tool in pandoc soffice deno; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
[ -f "$CORPUS/MANIFEST.tsv" ] || { echo "no corpus at $CORPUS" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"

# No images (the README's badges are remote); pandoc then fetches nothing.
cat >"$TMP/noimg.lua" <<'LUA'
function Image() return {} end
LUA
# Speaker notes: the first paragraph after each slide title moves into a notes div.
cat >"$TMP/notes.lua" <<'LUA'
function Image() return {} end
function Pandoc(doc)
  local out, want = {}, false
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level <= 2 then
      want = true
      table.insert(out, b)
    elseif want and b.t == "Para" then
      table.insert(out, pandoc.Div({ b }, pandoc.Attr("", { "notes" })))
      want = false
    else
      table.insert(out, b)
    end
  end
  return pandoc.Pandoc(out, doc.meta)
end
LUA

README=$CORPUS/markdown/zstd/zstd/README.md
META=(-M "title=Zstandard README" -M "author=Zstandard authors")
pandoc -s --lua-filter "$TMP/noimg.lua" "${META[@]}" "$README" -o "$OUT/zstd-readme.odt"
pandoc -s --lua-filter "$TMP/noimg.lua" "${META[@]}" "$README" -o "$OUT/zstd-readme.rtf"
pandoc --lua-filter "$TMP/notes.lua" --slide-level=2 "$README" -o "$OUT/zstd-readme.pptx"

soffice() {
  command soffice -env:UserInstallation="file://$TMP/profile" --headless "$@" >/dev/null \
    2>"$TMP/soffice.log" || { cat "$TMP/soffice.log" >&2; return 1; }
}
cp "$OUT/zstd-readme.pptx" "$TMP/deck.pptx"
soffice --convert-to odp --outdir "$TMP" "$TMP/deck.pptx"
cp "$TMP/deck.odp" "$OUT/zstd-readme.odp"

pandoc -s --lua-filter "$TMP/noimg.lua" -M "title=バインド" -M "author=Apache HTTP Server Project" \
  "$CORPUS/markdown/from-html/apache2-doc/ja_bind.md" -o "$TMP/ja-bind.odt"
soffice --convert-to rtf --outdir "$TMP" "$TMP/ja-bind.odt"
cp "$TMP/ja-bind.rtf" "$OUT/ja-bind.rtf"

CORPUS=$CORPUS deno run --allow-read --allow-env - >"$TMP/tables.fods" <<'TS'
const corpus = Deno.env.get("CORPUS")!;
const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
type Cell = string | number | { date: string };
function cell(v: Cell): string {
  if (typeof v === "number") {
    return `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>`;
  }
  if (typeof v === "object") {
    return `<table:table-cell table:style-name="date" office:value-type="date" office:date-value="${v.date}"><text:p>${v.date}</text:p></table:table-cell>`;
  }
  return `<table:table-cell office:value-type="string"><text:p>${esc(v)}</text:p></table:table-cell>`;
}
const table = (name: string, rows: Cell[][]) =>
  `<table:table table:name="${esc(name)}">` +
  rows.map((r) => `<table:table-row>${r.map(cell).join("")}</table:table-row>`).join("\n") +
  `</table:table>`;

const man: Cell[][] = [["Page", "Section", "Date", "Summary"]];
const manDir = `${corpus}/text/man/manpages`;
for (const sect of [...Deno.readDirSync(manDir)].map((e) => e.name).sort()) {
  for (const f of [...Deno.readDirSync(`${manDir}/${sect}`)].map((e) => e.name).sort()) {
    const lines = Deno.readTextFileSync(`${manDir}/${sect}/${f}`).split("\n");
    const footer = lines.filter((l) => l.trim()).at(-1)!;
    const date = /\b(\d{4}-\d{2}-\d{2})\b/.exec(footer)?.[1];
    const at = lines.findIndex((l) => l.trim() === "NAME");
    const summary = lines.slice(at + 1).join("\n").split(/\n\s*\n/)[0]!.replace(/\s+/g, " ")
      .trim();
    const name = f.replace(/\.\d\.txt$/, "");
    man.push([name, Number(sect.replace("man", "")), date ? { date } : "", summary]);
  }
}

const iso: Cell[][] = [["Oct", "Dec", "Hex", "Char", "Description"]];
for (const l of Deno.readTextFileSync(`${manDir}/man7/iso_8859-14.7.txt`).split("\n")) {
  const m = /^\s+(\d{3})\s+(\d{3})\s+([0-9A-F]{2})\s+(?:(\S)\s{2,})?([A-Z][A-Z -]+)$/.exec(l);
  if (m) iso.push([m[1]!, Number(m[2]), m[3]!, m[4] ?? "", m[5]!.trim()]);
}

const files: Cell[][] = [["Path", "Library", "Format", "Package", "Bytes"]];
for (const l of Deno.readTextFileSync(`${corpus}/MANIFEST.tsv`).split("\n").slice(1)) {
  const f = l.split("\t");
  if (f.length >= 5) files.push([f[0]!, f[1]!, f[2]!, f[3]!, Number(f[4])]);
}

console.log(`<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:meta><dc:title>Corpus tables</dc:title><meta:initial-creator>shelfmark fixtures</meta:initial-creator></office:meta>
<office:automatic-styles>
<number:date-style style:name="iso"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/></number:date-style>
<style:style style:name="date" style:family="table-cell" style:data-style-name="iso"/>
</office:automatic-styles>
<office:body><office:spreadsheet>
${table("Manual pages", man)}
${table("ISO 8859-14", iso)}
${table("Corpus", files)}
</office:spreadsheet></office:body></office:document>`);
TS
soffice --convert-to xlsx --outdir "$TMP" "$TMP/tables.fods"
soffice --convert-to ods --outdir "$TMP" "$TMP/tables.fods"
cp "$TMP/tables.xlsx" "$TMP/tables.ods" "$OUT/"

# A password-protected copy, saved through LibreOffice's UNO bridge.
cat >"$TMP/password.py" <<'PY'
import os, subprocess, sys, time
import uno
from com.sun.star.beans import PropertyValue

def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p

profile, src, dst, filt = sys.argv[1:5]
port = 2093
office = subprocess.Popen(
    ["soffice", "--headless", "--invisible", "--norestore", f"-env:UserInstallation={profile}",
     f"--accept=socket,host=127.0.0.1,port={port};urp;"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
for _ in range(120):
    try:
        ctx = resolver.resolve(f"uno:socket,host=127.0.0.1,port={port};urp;StarOffice.ComponentContext")
        break
    except Exception:
        time.sleep(0.5)
desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
try:
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(os.path.abspath(src)), "_blank", 0,
                                       (prop("Hidden", True),))
    doc.storeToURL(uno.systemPathToFileUrl(os.path.abspath(dst)),
                   (prop("FilterName", filt), prop("Password", "secret")))
    doc.close(True)
finally:
    try:
        desktop.terminate()
    except Exception:
        pass
    office.wait(timeout=60)
PY
PYTHONPATH=/usr/lib/python3/dist-packages:/usr/lib/libreoffice/program /usr/bin/python3 \
  "$TMP/password.py" "file://$TMP/profile" "$TMP/tables.ods" "$TMP/tables-password.ods" calc8
cp "$TMP/tables-password.ods" "$OUT/"
ls -l "$OUT"
