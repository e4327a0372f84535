import { assertEquals } from "../tests/assert.ts";
import { attr, decodeEntities, elements, nextTag, tags, textOf, xmlValue } from "./_xml.ts";

Deno.test("decodeEntities() decodes numeric and common named references, leaves others", () => {
  assertEquals(decodeEntities("a &amp; b &#8212; c &#x41; &hellip;"), "a & b — c A …");
  assertEquals(
    decodeEntities("&unknown; &#0; &#x110000; plain"),
    "&unknown; &#0; &#x110000; plain",
  );
});

Deno.test("decodeEntities() decodes every HTML5 name, needing the semicolon", () => {
  assertEquals(
    decodeEntities("Caf&eacute; &euro; men&uuml; &agrave; &ccedil; &frac12; &NotEqualTilde;"),
    "Café € menü à ç ½ \u2242\u0338",
  );
  assertEquals(decodeEntities("a&nbsp;b co&shy;op"), "a b coop");
  assertEquals(decodeEntities("?a=1&copy=2 &eacute"), "?a=1&copy=2 &eacute");
});

Deno.test("attr() reads quoted and unquoted values in any case, decoded, whole names only", () => {
  const attrs = ` class="a b" ID='x&amp;y' data-role="no" role=nav epub:type="toc" /`;
  assertEquals(attr(attrs, "class"), "a b");
  assertEquals(attr(attrs, "id"), "x&y");
  assertEquals(attr(attrs, "role"), "nav");
  assertEquals(attr(attrs, "epub:type"), "toc");
  assertEquals(attr(attrs, "href"), undefined);
  assertEquals(attr('src="a.html#s1"', "src"), "a.html#s1");
});

Deno.test("textOf() and xmlValue() give the text of markup", () => {
  assertEquals(textOf("<b>Intro</b>duction &amp;\n <i>use</i> "), "Introduction & use");
  assertEquals(textOf("<p>one</p><p>two</p>", " "), "one two");
  const xml = `<cp:coreProperties><dc:title xml:lang="en">A &amp; <x/>B</dc:title><dc:creator>
    </dc:creator></cp:coreProperties>`;
  assertEquals(xmlValue(xml, "dc:title"), "A & B");
  assertEquals(xmlValue(xml, "dc:title", " "), "A & B");
  assertEquals(xmlValue(xml, "dc:creator"), undefined);
  assertEquals(xmlValue(xml, "dc:language"), undefined);
});

Deno.test("tags() finds comments, declarations, open and close tags; passes over raw text", () => {
  const page = `<!DOCTYPE html><?xml v?>a < b<P Class="x">t<!-- <p> -->` +
    `<script>if (a<b) "</p>"</script ><br/></p><!-- open`;
  const got = [...tags(page)].map((t) => [t.kind, t.name, t.attrs, page.slice(t.start, t.end)]);
  assertEquals(got, [
    ["decl", "", "", "<!DOCTYPE html>"],
    ["decl", "", "", "<?xml v?>"],
    ["open", "p", ' Class="x"', '<P Class="x">'],
    ["comment", "", "", "<!-- <p> -->"],
    ["open", "script", "", "<script>"],
    ["open", "br", "/", "<br/>"],
    ["close", "p", "", "</p>"],
    ["comment", "", "", "<!-- open"],
  ]);
  const script = nextTag(page, page.indexOf("<script>"))!;
  assertEquals(page.slice(script.next, script.next + 5), "<br/>");
  assertEquals(nextTag("no markup < here", 0), undefined);
});

Deno.test("elements() finds open tags by local name, with or without a namespace prefix", () => {
  const opf = `<opf:manifest><opf:item id="a"/><item id="b"></item><itemref idref="a"/>` +
    `<!-- <item id="c"/> --></opf:manifest>`;
  assertEquals([...elements(opf, "item")].map((t) => attr(t.attrs, "id")), ["a", "b"]);
  assertEquals([...elements(opf, "itemref")].length, 1);
});
