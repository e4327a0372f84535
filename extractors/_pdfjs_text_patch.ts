/**
 * pdf.js's worker code with a cheaper text-content builder. pdf.js computes the position of
 * every glyph it reads twice (once to compare it with the previous glyph, once to remember
 * it), each time as three new 6-number arrays (`Util.transform` of the font size matrix, the
 * text matrix and the CTM), which was a fifth of the CPU of PDF text extraction (with the
 * garbage those arrays make). The same code lives in a closure of the worker bundle that no
 * export reaches, so this module rewrites the bundle's source when it loads it: the
 * products become scalar arithmetic written into two buffers the text builder owns, and an
 * array is made only where pdf.js hands a position out (an item's `transform`). Every number
 * is computed by the same operations in the same order, so the text content is the same to
 * the last bit (`_pdfjs_text_patch_test.ts` compares the two on real files). More
 * rewrites of the same kind: a text state's copy no longer makes the original a prototype,
 * a font no longer keeps the glyphs of every string it has read, and a text item's string
 * with no character at or above U+00A0 skips Unicode normalization and bidi, which give it
 * back unchanged (see {@link WORKER_PATCHES}, each with its reason).
 *
 * Fonts for text only: a document opened with the `textOnlyFonts` evaluator option (the PDF
 * extractor's, see `inThreadWorker` in `pdf.ts`) reads a Type1 font program for what text
 * needs (built-in encoding, and the widths the PDF lacks) and builds no glyph outlines, no
 * CFF and no OpenType file: the font translation was 11-13 % of the CPU of text extraction
 * and is under 2 %. Text content is the same (the tests compare it with the library's).
 * Such a document still gives operator lists, but its Type1 fonts have no font file (like a
 * missing one) and draw no glyphs: the OCR opens its own documents without the option.
 *
 * Memory: pdf.js keeps every page it opened and every object it parsed until the document
 * is destroyed. A patched worker answers one more request, {@link dropParsed}, by letting
 * them go (except what carries its font caches' state); the PDF extractor sends it every
 * few dozen pages of a large PDF.
 *
 * The rewrites are applied only to the exact file it was written for (pdfjs-dist 6.5.438
 * legacy, checked by its SHA-256); for any other file, or when the file cannot be read, the
 * library's own worker is used unchanged, and the test that checks the patch fails so that
 * whoever upgrades pdf.js renews or drops it.
 *
 * The bundle is an ES module with one export and two reads of `import.meta.url`; it runs
 * here as the body of a function (strict mode, as a module) that returns that export, which
 * keeps Deno from parsing 2.4 MB as a new module graph entry (a `data:` or `blob:` import
 * costs twice the CPU and 50 MiB more memory).
 *
 * @module
 */

/** The pdf.js worker module: `WorkerMessageHandler` is all the extractor uses. */
export type PdfjsWorkerModule = typeof import("pdfjs-dist/legacy/build/pdf.worker.mjs");

/** The bundle the patches were written for. */
const WORKER_SPECIFIER = "pdfjs-dist/legacy/build/pdf.worker.mjs";
/** SHA-256 (hex) of pdfjs-dist 6.5.438 `legacy/build/pdf.worker.mjs`. */
export const PATCHED_WORKER_SHA256 =
  "8336aabf764cb08c818555a2fd2545e4fed10837146de927564875c93b3c4f83";

/**
 * The request a patched worker answers by letting go of what it parsed for the pages before
 * `before` (0-based): their page objects and the document's parsed objects (`XRef`'s cache,
 * see the "XRef.dropParsedObjects" patch), which pdf.js otherwise keeps until the document
 * is destroyed. The answer is how many parsed objects were let go.
 */
export const DROP_PARSED_ACTION = "ShelfmarkDropParsed";

/** The part of a pdf.js document proxy {@link dropParsed} uses (not in its types). */
interface DocumentTransport {
  _transport: {
    messageHandler: {
      sendWithPromise(action: string, data: unknown): Promise<unknown>;
    };
  };
}

/**
 * Ask the patched worker of `doc` to let go of what it parsed for the pages before
 * `before` (0-based) and of every parsed object it can parse again; resolves to the number
 * of objects let go. Only for a document opened with the patched worker: the library's own
 * worker does not know the request.
 */
export async function dropParsed(doc: object, before: number): Promise<number> {
  const { messageHandler } = (doc as DocumentTransport)._transport;
  return Number(await messageHandler.sendWithPromise(DROP_PARSED_ACTION, { before }));
}

/** One exact rewrite of the bundle: `from` must occur `count` times (default once). */
export interface SourcePatch {
  name: string;
  from: string;
  to: string;
  count?: number;
}

/** pdf.js's `Lexer.getString` (pdfjs-dist 6.5.438), which a patch rewrites. */
const LEXER_GET_STRING = `  getString() {
    let numParen = 1;
    let done = false;
    const strBuf = this.strBuf;
    strBuf.length = 0;
    let ch = this.nextChar();
    while (true) {
      let charBuffered = false;
      switch (ch | 0) {
        case -1:
          warn("Unterminated string");
          done = true;
          break;
        case 0x28:
          ++numParen;
          strBuf.push("(");
          break;
        case 0x29:
          if (--numParen === 0) {
            this.nextChar();
            done = true;
          } else {
            strBuf.push(")");
          }
          break;
        case 0x5c:
          ch = this.nextChar();
          switch (ch) {
            case -1:
              warn("Unterminated string");
              done = true;
              break;
            case 0x6e:
              strBuf.push("\\n");
              break;
            case 0x72:
              strBuf.push("\\r");
              break;
            case 0x74:
              strBuf.push("\\t");
              break;
            case 0x62:
              strBuf.push("\\b");
              break;
            case 0x66:
              strBuf.push("\\f");
              break;
            case 0x5c:
              strBuf.push("\\\\");
              break;
            case 0x28:
              strBuf.push("(");
              break;
            case 0x29:
              strBuf.push(")");
              break;
            case 0x30:
            case 0x31:
            case 0x32:
            case 0x33:
            case 0x34:
            case 0x35:
            case 0x36:
            case 0x37:
              let x = ch & 0x0f;
              ch = this.nextChar();
              charBuffered = true;
              if (ch >= 0x30 && ch <= 0x37) {
                x = (x << 3) + (ch & 0x0f);
                ch = this.nextChar();
                if (ch >= 0x30 && ch <= 0x37) {
                  charBuffered = false;
                  x = (x << 3) + (ch & 0x0f);
                }
              }
              strBuf.push(String.fromCharCode(x));
              break;
            case 0x0d:
              if (this.peekChar() === 0x0a) {
                this.nextChar();
              }
              break;
            case 0x0a:
              break;
            default:
              strBuf.push(String.fromCharCode(ch));
              break;
          }
          break;
        default:
          strBuf.push(String.fromCharCode(ch));
          break;
      }
      if (done) {
        break;
      }
      if (!charBuffered) {
        ch = this.nextChar();
      }
    }
    return strBuf.join("");
  }
`;

/**
 * {@link LEXER_GET_STRING} with character codes in a buffer of its own instead of
 * one-character strings in the lexer's shared one (the same characters: each escape's code
 * is the character it pushed; a buffer of small integers only stays a fast array).
 */
const LEXER_GET_STRING_CODES = [
  ["const strBuf = this.strBuf;\n    strBuf.length = 0;\n", "const strBuf = [];\n"],
  ['strBuf.push("(")', "strBuf.push(0x28)"],
  ['strBuf.push(")")', "strBuf.push(0x29)"],
  ['strBuf.push("\\n")', "strBuf.push(0x0a)"],
  ['strBuf.push("\\r")', "strBuf.push(0x0d)"],
  ['strBuf.push("\\t")', "strBuf.push(0x09)"],
  ['strBuf.push("\\b")', "strBuf.push(0x08)"],
  ['strBuf.push("\\f")', "strBuf.push(0x0c)"],
  ['strBuf.push("\\\\")', "strBuf.push(0x5c)"],
  ["strBuf.push(String.fromCharCode(x))", "strBuf.push(x)"],
  ["strBuf.push(String.fromCharCode(ch))", "strBuf.push(ch)"],
  ['return strBuf.join("");', "return charCodesToString(strBuf);"],
].reduce((src, [from, to]) => src.replaceAll(from!, to!), LEXER_GET_STRING);

/** pdf.js's `Lexer.getName` (pdfjs-dist 6.5.438), which a patch rewrites. */
const LEXER_GET_NAME = `  getName() {
    let ch, previousCh;
    const strBuf = this.strBuf;
    strBuf.length = 0;
    while ((ch = this.nextChar()) >= 0 && !specialChars[ch]) {
      if (ch === 0x23) {
        ch = this.nextChar();
        if (specialChars[ch]) {
          warn("Lexer_getName: " + "NUMBER SIGN (#) should be followed by a hexadecimal number.");
          strBuf.push("#");
          break;
        }
        const x = toHexDigit(ch);
        if (x !== -1) {
          previousCh = ch;
          ch = this.nextChar();
          const x2 = toHexDigit(ch);
          if (x2 === -1) {
            warn(\`Lexer_getName: Illegal digit (\${String.fromCharCode(ch)}) \` + "in hexadecimal number.");
            strBuf.push("#", String.fromCharCode(previousCh));
            if (specialChars[ch]) {
              break;
            }
            strBuf.push(String.fromCharCode(ch));
            continue;
          }
          strBuf.push(String.fromCharCode(x << 4 | x2));
        } else {
          strBuf.push("#", String.fromCharCode(ch));
        }
      } else {
        strBuf.push(String.fromCharCode(ch));
      }
    }
    if (strBuf.length > 127) {
      warn(\`Name token is longer than allowed by the spec: \${strBuf.length}\`);
    }
    return Name.get(strBuf.join(""));
  }
`;

/** {@link LEXER_GET_NAME} with character codes in a buffer of its own, as for getString. */
const LEXER_GET_NAME_CODES = [
  ["const strBuf = this.strBuf;\n    strBuf.length = 0;\n", "const strBuf = [];\n"],
  ['strBuf.push("#");', "strBuf.push(0x23);"],
  ['strBuf.push("#", String.fromCharCode(previousCh));', "strBuf.push(0x23, previousCh);"],
  ['strBuf.push("#", String.fromCharCode(ch));', "strBuf.push(0x23, ch);"],
  ["strBuf.push(String.fromCharCode(x << 4 | x2));", "strBuf.push(x << 4 | x2);"],
  ["strBuf.push(String.fromCharCode(ch));", "strBuf.push(ch);"],
  ['return Name.get(strBuf.join(""));', "return Name.get(charCodesToString(strBuf));"],
].reduce((src, [from, to]) => src.replaceAll(from!, to!), LEXER_GET_NAME);

/** pdf.js's `Lexer.getHexString` (pdfjs-dist 6.5.438), which a patch rewrites. */
const LEXER_GET_HEX_STRING = `  getHexString() {
    const strBuf = this.strBuf;
    strBuf.length = 0;
    let ch = this.currentChar;
    let firstDigit = -1,
      digit = -1;
    this._hexStringNumWarn = 0;
    while (true) {
      if (ch < 0) {
        warn("Unterminated hex string");
        break;
      } else if (ch === 0x3e) {
        this.nextChar();
        break;
      } else if (specialChars[ch] === 1) {
        ch = this.nextChar();
        continue;
      } else {
        digit = toHexDigit(ch);
        if (digit === -1) {
          this._hexStringWarn(ch);
        } else if (firstDigit === -1) {
          firstDigit = digit;
        } else {
          strBuf.push(String.fromCharCode(firstDigit << 4 | digit));
          firstDigit = -1;
        }
        ch = this.nextChar();
      }
    }
    if (firstDigit !== -1) {
      strBuf.push(String.fromCharCode(firstDigit << 4));
    }
    return strBuf.join("");
  }
`;

/** {@link LEXER_GET_HEX_STRING} with character codes in a buffer of its own. */
const LEXER_GET_HEX_STRING_CODES = [
  ["const strBuf = this.strBuf;\n    strBuf.length = 0;\n", "const strBuf = [];\n"],
  [
    "strBuf.push(String.fromCharCode(firstDigit << 4 | digit));",
    "strBuf.push(firstDigit << 4 | digit);",
  ],
  ["strBuf.push(String.fromCharCode(firstDigit << 4));", "strBuf.push(firstDigit << 4);"],
  ['return strBuf.join("");', "return charCodesToString(strBuf);"],
].reduce((src, [from, to]) => src.replaceAll(from!, to!), LEXER_GET_HEX_STRING);

/**
 * The rewrites. The first three make the ES module a function body; the others are the
 * text-builder changes. Indentation is the bundle's (the match is exact).
 */
export const WORKER_PATCHES: readonly SourcePatch[] = [
  { name: "import.meta.url", from: "import.meta.url", to: "__importMetaUrl", count: 2 },
  { name: "dynamic import", from: "await import(\n", to: "await __import(\n" },
  {
    name: "module export",
    from: "\nexport { WorkerMessageHandler };\n",
    to: "\nreturn { WorkerMessageHandler };\n",
  },
  {
    // The product CTM x text matrix x [size*hscale 0 0 size 0 rise], written into a buffer
    // term by term as `Util.transform` computes it (the zero terms too: they decide the sign
    // of a zero and carry NaN exactly as before).
    name: "getCurrentTextTransform",
    from: `    function getCurrentTextTransform() {
      const font = textState.font;
      const tsm = [textState.fontSize * textState.textHScale, 0, 0, textState.fontSize, 0, textState.textRise];
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          tsm[3] *= glyphHeight * textState.fontMatrix[3];
        }
      }
      return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));
    }
`,
    to: `    const currentTransformBuffer = new Float64Array(6);
    const prevTransformBuffer = new Float64Array(6);
    function computeTextTransform(out) {
      const font = textState.font;
      const s0 = textState.fontSize * textState.textHScale;
      let s3 = textState.fontSize;
      const s5 = textState.textRise;
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          s3 *= glyphHeight * textState.fontMatrix[3];
        }
      }
      const m = textState.textMatrix;
      const t0 = m[0] * s0 + m[2] * 0, t1 = m[1] * s0 + m[3] * 0;
      const t2 = m[0] * 0 + m[2] * s3, t3 = m[1] * 0 + m[3] * s3;
      const t4 = m[0] * 0 + m[2] * s5 + m[4], t5 = m[1] * 0 + m[3] * s5 + m[5];
      const c = textState.ctm;
      out[0] = c[0] * t0 + c[2] * t1;
      out[1] = c[1] * t0 + c[3] * t1;
      out[2] = c[0] * t2 + c[2] * t3;
      out[3] = c[1] * t2 + c[3] * t3;
      out[4] = c[0] * t4 + c[2] * t5 + c[4];
      out[5] = c[1] * t4 + c[3] * t5 + c[5];
      return out;
    }
    function copyTransform(t) {
      return t === null ? null : [t[0], t[1], t[2], t[3], t[4], t[5]];
    }
    function getCurrentTextTransform() {
      return copyTransform(computeTextTransform(currentTransformBuffer));
    }
`,
  },
  {
    // The previous glyph's position is remembered in its buffer, not a new array ...
    name: "prevTransform",
    from: "          textChunk.prevTransform = getCurrentTextTransform();\n",
    to: "          textChunk.prevTransform = computeTextTransform(prevTransformBuffer);\n",
  },
  {
    // ... and copied where it leaves as a whitespace item's transform.
    name: "pushWhitespace transform",
    from: "      transform = textContentItem.prevTransform,\n",
    to: "      transform = copyTransform(textContentItem.prevTransform),\n",
  },
  {
    name: "addFakeSpaces transform",
    from: "        transform: transf || getCurrentTextTransform(),\n",
    to: "        transform: transf ? copyTransform(transf) : getCurrentTextTransform(),\n",
  },
  {
    // The position compared with the previous glyph's is read, not kept: a buffer will do.
    name: "compareWithLastPosition",
    from: "    function compareWithLastPosition(glyphWidth) {\n" +
      "      const currentTransform = getCurrentTextTransform();\n",
    to: "    function compareWithLastPosition(glyphWidth) {\n" +
      "      const currentTransform = computeTextTransform(currentTransformBuffer);\n",
  },
  {
    // A text state's copy (at every `q` and font change) made a prototype of the state it
    // copies (`Object.create(this)`), and V8 slows down an object that becomes a
    // prototype and reshapes it; the copy now has the class's prototype and the same fields
    // (the class's own, all copied by `Object.assign` before, the three matrices copied).
    name: "TextState.clone",
    from: `  clone() {
    const clone = Object.assign(Object.create(this), this);
    clone.textMatrix = this.textMatrix.slice();
    clone.textLineMatrix = this.textLineMatrix.slice();
    clone.fontMatrix = this.fontMatrix.slice();
    return clone;
  }
}
class EvalState {
`,
    to: `  clone() {
    const clone = Object.create(TextState.prototype);
    clone.ctm = this.ctm;
    clone.fontName = this.fontName;
    clone.fontSize = this.fontSize;
    clone.loadedName = this.loadedName;
    clone.font = this.font;
    clone.fontMatrix = this.fontMatrix.slice();
    clone.textMatrix = this.textMatrix.slice();
    clone.textLineMatrix = this.textLineMatrix.slice();
    clone.charSpacing = this.charSpacing;
    clone.wordSpacing = this.wordSpacing;
    clone.leading = this.leading;
    clone.textHScale = this.textHScale;
    clone.textRise = this.textRise;
    return clone;
  }
}
class EvalState {
`,
  },
  {
    // A font kept the glyphs of every string it was asked for (a Map keyed by the string,
    // for the document's life): most strings are seen once, so hashing and storing them
    // cost more than looking each character up in the per-character cache it also keeps
    // (charsToGlyphs 6.8 -> 2.8 % of the profile, less garbage collection). The glyphs and
    // their order are the same; the array is new on each call (callers only read it).
    name: "charsToGlyphs cache",
    from: `  charsToGlyphs(chars) {
    let glyphs = this.#charsCache.get(chars);
    if (glyphs) {
      return glyphs;
    }
    glyphs = [];
`,
    to: `  charsToGlyphs(chars) {
    const glyphs = [];
`,
  },
  {
    name: "charsToGlyphs cache set",
    from: `    this.#charsCache.set(chars, glyphs);
    return glyphs;
`,
    to: `    return glyphs;
`,
  },
  {
    // Each text item's string went through Unicode normalization (a regular expression of
    // compatibility characters, all at U+00A0 or above) and the bidi algorithm (which copies
    // the string char by char to classify it; no character below U+0100 is right-to-left).
    // A string with no character at or above U+00A0 gives back itself, left to right, from
    // both: it skips them (one scan with a simpler expression).
    name: "runBidiTransform plain text",
    from: `    function runBidiTransform(textChunk) {
      let text = textChunk.str.join("");
      if (!disableNormalization) {
        text = normalizeUnicode(text);
      }
      const bidiResult = bidi(text, -1, textChunk.vertical);
`,
    to: `    const notPlainText = /[^\\x00-\\x9f]/;
    function runBidiTransform(textChunk) {
      let text = textChunk.str.join("");
      let bidiResult;
      if (notPlainText.test(text)) {
        if (!disableNormalization) {
          text = normalizeUnicode(text);
        }
        bidiResult = bidi(text, -1, textChunk.vertical);
      } else {
        bidiResult = createBidiText(text, true, textChunk.vertical);
      }
`,
  },
  // Fonts for text only (a document opened with `textOnlyFonts` in its evaluator options,
  // see `inThreadWorker` of `pdf.ts`): the text needs a font's widths, encoding and
  // toUnicode map, which pdf.js reads from the PDF and, for a Type1 font program, from its
  // built-in encoding and glyph names; the glyph outlines (each charstring decrypted and
  // run, the Type1 -> CFF compilation, the OpenType file around it) only serve drawing, and
  // were 6-7 % of the CPU of text extraction on TeX-made PDFs. Such a font has no `data`
  // (undefined, as for a font without a file), so it draws nothing (the OCR opens its own).
  {
    name: "Font: text-only Type1",
    from:
      `          const cff = subtype === "Type1C" || subtype === "CIDFontType0C" ? new CFFFont(file, properties) : new Type1Font(name, file, properties);
          adjustWidths(properties);
          data = this.convert(name, cff, properties);
`,
    to: `          const textOnly = evaluatorOptions.textOnlyFonts === true;
          const cff = subtype === "Type1C" || subtype === "CIDFontType0C" ? new CFFFont(file, properties) : new Type1Font(name, file, properties, textOnly);
          adjustWidths(properties);
          data = this.convert(name, cff, properties, textOnly);
`,
  },
  {
    // The toUnicode amendment from the built-in encoding stays; the glyph mapping (font
    // character codes, accents made of two glyphs) and the OpenType tables are for drawing.
    name: "Font.convert: text-only",
    from: `  convert(fontName, font, properties) {
    properties.fixedPitch = false;
    if (properties.builtInEncoding) {
      adjustType1ToUnicode(properties, properties.builtInEncoding);
    }
`,
    to: `  convert(fontName, font, properties, textOnly = false) {
    properties.fixedPitch = false;
    if (properties.builtInEncoding) {
      adjustType1ToUnicode(properties, properties.builtInEncoding);
    }
    if (textOnly) {
      return undefined;
    }
`,
  },
  {
    // The properties the font program sets (built-in encoding, widths, private data) are
    // kept; the CFF compilation of the outlines is skipped.
    name: "Type1Font: text-only",
    from: `  constructor(name, file, properties) {
    let data;
    if (properties.composite && isCidKeyedType1File(file)) {
      data = this.#parseCidKeyedType1(file, properties);
    }
    data ||= this.#parseType1(file, properties);
    for (const key in data.properties) {
      properties[key] = data.properties[key];
    }
`,
    to: `  constructor(name, file, properties, textOnly = false) {
    let data;
    if (properties.composite && isCidKeyedType1File(file)) {
      data = this.#parseCidKeyedType1(file, properties);
    }
    data ||= this.#parseType1(file, properties, textOnly);
    for (const key in data.properties) {
      properties[key] = data.properties[key];
    }
    if (textOnly) {
      this.charstrings = data.charstrings;
      this.data = undefined;
      return;
    }
`,
  },
  {
    name: "Type1Font.#parseType1: text-only",
    from: "  #parseType1(file, properties) {\n",
    to: "  #parseType1(file, properties, textOnly) {\n",
  },
  {
    // The encrypted part of a Type1 program (private data, subroutines, charstrings) gives
    // text nothing but the widths the PDF lacks (see below): when no code of the built-in
    // encoding could take one, it is not decrypted or read at all. (Reading it throws on
    // nothing that skipping it would hide: the eexec block is still fetched, which throws
    // when it is empty.)
    name: "Type1Font.#parseType1: program read for widths only",
    from:
      `    const eexecBlockParser = new Type1Parser(eexecBlock.stream, true, (/* inlined export .SEAC_ANALYSIS_ENABLED */true));
    const data = eexecBlockParser.extractFontProgram(properties);
`,
    to: `    if (textOnly && !type1ProgramGivesWidths(properties)) {
      this.#rawFileLength = headerBlock.length + eexecBlock.length;
      return { subrs: [], charstrings: [], properties: { privateData: new Map([["lenIV", 4]]) } };
    }
    const eexecBlockParser = new Type1Parser(eexecBlock.stream, true, (/* inlined export .SEAC_ANALYSIS_ENABLED */true));
    const data = eexecBlockParser.extractFontProgram(properties, textOnly);
`,
  },
  {
    // Whether some glyph could fill a width: the condition of extractFontProgram's width
    // fill (a glyph named at a code of the built-in encoding, the first code with that name,
    // between FirstChar and LastChar, with no width yet), for any glyph name.
    name: "type1ProgramGivesWidths",
    from: "function isCidKeyedType1File(file) {\n",
    to: `function type1ProgramGivesWidths(properties) {
  const encoding = properties.builtInEncoding;
  if (!encoding) {
    return false;
  }
  for (let i = 0; i < encoding.length; i++) {
    const glyph = encoding[i];
    if (typeof glyph === "string" && properties.widths[i] === undefined && i >= properties.firstChar && i <= properties.lastChar && encoding.indexOf(glyph) === i) {
      return true;
    }
  }
  return false;
}
function isCidKeyedType1File(file) {
`,
  },
  {
    name: "extractFontProgram: text-only",
    from: "  extractFontProgram(properties) {\n",
    to: "  extractFontProgram(properties, textOnly = false) {\n    const encryptedSubrs = [];\n",
  },
  {
    // For text, subroutines are decrypted only if a charstring is run (below) ...
    name: "extractFontProgram: subrs kept encrypted",
    from: `            const index = this.readInt();
            length = this.readInt();
            this.getToken();
            data = length > 0 ? stream.getBytes(length) : new Uint8Array(0);
            const encoded = this.readCharStrings(data, privateData.get("lenIV"));
`,
    to: `            const index = this.readInt();
            length = this.readInt();
            this.getToken();
            data = length > 0 ? stream.getBytes(length) : new Uint8Array(0);
            const encoded = textOnly ? null : this.readCharStrings(data, privateData.get("lenIV"));
            if (textOnly) {
              encryptedSubrs[index] = [data, privateData.get("lenIV")];
            }
`,
  },
  {
    // ... and a charstring when it is run, not as it is read.
    name: "extractFontProgram: charstring kept encrypted",
    from: `            const glyph = this.getToken();
            length = this.readInt();
            this.getToken();
            data = length > 0 ? stream.getBytes(length) : new Uint8Array(0);
            const encoded = this.readCharStrings(data, privateData.get("lenIV"));
`,
    to: `            const glyph = this.getToken();
            length = this.readInt();
            this.getToken();
            data = length > 0 ? stream.getBytes(length) : new Uint8Array(0);
            const lenIV = privateData.get("lenIV");
            const encoded = textOnly ? null : this.readCharStrings(data, lenIV);
`,
  },
  {
    name: "extractFontProgram: encrypted charstring kept",
    from: `            charstrings.push({
              glyph,
              encoded
            });
`,
    to: `            charstrings.push({
              glyph,
              encoded,
              data,
              lenIV
            });
`,
  },
  {
    // For text, a glyph's charstring is run only when it gives a width the PDF lacks (the
    // condition of the width fill below, unchanged); the others keep their name and order.
    name: "extractFontProgram: charstrings run for widths only",
    from: `    for (const {
      encoded,
      glyph
    } of charstrings) {
      const charString = new Type1CharString();
      const error = charString.convert(encoded, subrs, this.seacAnalysisEnabled);
`,
    to: `    for (const {
      encoded: decrypted,
      glyph,
      data: raw,
      lenIV
    } of charstrings) {
      if (textOnly) {
        const index = properties.builtInEncoding ? properties.builtInEncoding.indexOf(glyph) : -1;
        if (!(index > -1 && properties.widths[index] === undefined && index >= properties.firstChar && index <= properties.lastChar)) {
          const skipped = { glyphName: glyph, charstring: null, width: undefined, lsb: undefined, seac: undefined };
          if (glyph === ".notdef") {
            program.charstrings.unshift(skipped);
          } else {
            program.charstrings.push(skipped);
          }
          continue;
        }
      }
      if (textOnly && encryptedSubrs.length) {
        for (const i in encryptedSubrs) {
          subrs[i] = this.readCharStrings(encryptedSubrs[i][0], encryptedSubrs[i][1]);
        }
        encryptedSubrs.length = 0;
      }
      const encoded = decrypted ?? this.readCharStrings(raw, lenIV);
      const charString = new Type1CharString();
      const error = charString.convert(encoded, subrs, this.seacAnalysisEnabled);
`,
  },
  {
    // A literal string of a content stream ("(Hello) Tj") was read as an array of
    // one-character strings joined at the end: 3-4 % of the CPU of text extraction. The same
    // characters are kept as their codes and made into the string at once (every code is
    // below 512: a byte, or an octal escape).
    name: "Lexer.getString: character codes",
    from: LEXER_GET_STRING,
    to: LEXER_GET_STRING_CODES,
  },
  {
    // A name ("/F1", "/Span") the same way: 3-4 % too.
    name: "Lexer.getName: character codes",
    from: LEXER_GET_NAME,
    to: LEXER_GET_NAME_CODES,
  },
  {
    // And a hex string ("<0041> Tj", the text of most CID fonts).
    name: "Lexer.getHexString: character codes",
    from: LEXER_GET_HEX_STRING,
    to: LEXER_GET_HEX_STRING_CODES,
  },
  {
    name: "charCodesToString",
    from: "\nclass Lexer {\n",
    to: `
function charCodesToString(codes) {
  const n = codes.length;
  if (n <= 8192) {
    return String.fromCharCode.apply(null, codes);
  }
  let out = "";
  for (let i = 0; i < n; i += 8192) {
    out += String.fromCharCode.apply(null, codes.slice(i, i + 8192));
  }
  return out;
}
class Lexer {
`,
  },
  // A font change (`Tf`) in a page's text made the text builder stop, hand its items over
  // and go on after a promise, even when the font was loaded before (nearly always: TeX sets
  // a few dozen fonts, in every line): the promise round, the chunk of text content it sends
  // and the stream's read on the other side were about a tenth of the CPU of a large PDF's
  // text. A font whose promise has settled is applied at once; the items, their order and
  // the styles are the same (only where the chunks end differs, and the API joins them).
  {
    name: "settledFonts",
    from: "const TEXT_CHUNK_BATCH_SIZE = 10;\n",
    to: "const TEXT_CHUNK_BATCH_SIZE = 10;\nconst settledFonts = new WeakMap();\n",
  },
  {
    // The translated font a cached font promise settles with, kept beside it.
    name: "loadFont: settled font",
    from: `    const {
      promise,
      resolve
    } = Promise.withResolvers();
    let preEvaluatedFont;
`,
    to: `    const {
      promise,
      resolve: resolvePromise
    } = Promise.withResolvers();
    const resolve = translated => {
      settledFonts.set(promise, translated);
      resolvePromise(translated);
    };
    let preEvaluatedFont;
`,
  },
  {
    // What loadFont returns at once for a font of the page's resources already in the
    // document's font cache (its lookup, in the same order), when its promise has settled.
    name: "getTextContent: settledFontNamed",
    from: `    async function handleSetFont(fontName, fontRef) {
      const translated = await self.loadFont(fontName, fontRef, resources, task, null, null, seenRefs);
      textState.loadedName = translated.loadedName;
      textState.font = translated.font;
      textState.fontMatrix = translated.font.fontMatrix || FONT_IDENTITY_MATRIX;
    }
`,
    to: `    function applyFont(translated) {
      textState.loadedName = translated.loadedName;
      textState.font = translated.font;
      textState.fontMatrix = translated.font.fontMatrix || FONT_IDENTITY_MATRIX;
    }
    function settledFontNamed(fontName) {
      try {
        const fontRef = resources.get("Font")?.getRaw(fontName);
        if (fontRef instanceof Ref && !self.type3FontRefs?.has(fontRef) && self.fontCache.has(fontRef)) {
          return settledFonts.get(self.fontCache.get(fontRef));
        }
      } catch {}
      return undefined;
    }
    async function handleSetFont(fontName, fontRef) {
      applyFont(await self.loadFont(fontName, fontRef, resources, task, null, null, seenRefs));
    }
`,
  },
  {
    name: "getTextContent: setFont without a promise",
    from: `            textState.fontName = fontNameArg;
            textState.fontSize = fontSizeArg;
            next(handleSetFont(fontNameArg, null));
            return;
`,
    to: `            textState.fontName = fontNameArg;
            textState.fontSize = fontSizeArg;
            const settledFont = settledFontNamed(fontNameArg);
            if (settledFont) {
              applyFont(settledFont);
              break;
            }
            next(handleSetFont(fontNameArg, null));
            return;
`,
  },
  {
    // XRef keeps every non-stream object it has parsed until the document is destroyed
    // (`doc.cleanup()` leaves it): for a book of 1,600 pages, 95,000 dictionaries. This
    // method lets them go; they are parsed again if asked for. Kept: the objects pdf.js
    // wrote its own state on, which a new copy would lack (a font descriptor's
    // `fontAliases`, an inline font's `cacheKey`, or a dictionary holding such a font up to
    // three levels down: a new copy would load the same font again under a new name), and
    // everything once objects are being created (`getNewPersistentRef`: saving, editing).
    name: "XRef.dropParsedObjects",
    from: "class XRef {\n  #cacheMap = new Map();\n",
    to: `class XRef {
  #cacheMap = new Map();
  dropParsedObjects() {
    if (this.#newPersistentRefNum !== null || this.#newTemporaryRefNum !== null) {
      return 0;
    }
    const carriesState = (value, depth) => {
      if (Array.isArray(value)) {
        return depth > 0 && value.some(v => carriesState(v, depth - 1));
      }
      if (!(value instanceof Dict)) {
        return false;
      }
      if (value.cacheKey !== undefined || value.fontAliases !== undefined) {
        return true;
      }
      return depth > 0 && value.getRawValues().some(v => carriesState(v, depth - 1));
    };
    let dropped = 0;
    for (const [num, obj] of this.#cacheMap) {
      if (!carriesState(obj, 3)) {
        this.#cacheMap.delete(num);
        dropped++;
      }
    }
    return dropped;
  }
`,
  },
  {
    // The worker keeps each page it has opened (its dictionary and resources) until the
    // document is destroyed; pages before `before` (0-based) are let go, then the parsed
    // objects. A page let go is opened again if asked for.
    name: "PDFDocument.dropParsed",
    from: "class PDFDocument {\n  #pagePromises = new Map();\n",
    to: `class PDFDocument {
  #pagePromises = new Map();
  dropParsed(before) {
    for (const pageIndex of [...this.#pagePromises.keys()]) {
      if (pageIndex < before) {
        this.#pagePromises.delete(pageIndex);
      }
    }
    return this.xref.dropParsedObjects();
  }
`,
  },
  {
    // The request that calls it (see {@link DROP_PARSED_ACTION}).
    name: "DropParsed action",
    from: `    handler.on("Cleanup", function () {
      return pdfManager.cleanup(true);
    });
`,
    to: `    handler.on("Cleanup", function () {
      return pdfManager.cleanup(true);
    });
    handler.on("${DROP_PARSED_ACTION}", function ({
      before
    }) {
      return pdfManager.pdfDocument.dropParsed(before);
    });
`,
  },
];

/**
 * The bundle's source with every patch of `patches` applied, as a function body returning
 * the module's export; throws an Error naming the first patch whose text is not found the
 * expected number of times.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const body = patchWorkerSource("f(import.meta.url);\nexport { X };\n", [
 *   { name: "url", from: "import.meta.url", to: "__importMetaUrl" },
 *   { name: "export", from: "\nexport { X };\n", to: "\nreturn { X };\n" },
 * ]);
 * assert.equal(body, '"use strict";\nf(__importMetaUrl);\nreturn { X };\n');
 * assert.throws(() => patchWorkerSource("g();", [{ name: "url", from: "f(", to: "h(" }]), {
 *   message: 'pdf.js worker patch "url": found 0 times, expected 1',
 * });
 * ```
 */
export function patchWorkerSource(
  source: string,
  patches: readonly SourcePatch[] = WORKER_PATCHES,
): string {
  // One pass over the 2.4 MB source: find every match, then copy the text between them.
  const at: { pos: number; patch: SourcePatch }[] = [];
  for (const patch of patches) {
    let found = 0;
    for (let i = source.indexOf(patch.from); i >= 0; i = source.indexOf(patch.from, i + 1)) {
      at.push({ pos: i, patch });
      found++;
    }
    const expected = patch.count ?? 1;
    if (found !== expected) {
      throw new Error(
        `pdf.js worker patch "${patch.name}": found ${found} times, expected ${expected}`,
      );
    }
  }
  at.sort((a, b) => a.pos - b.pos);
  const parts = ['"use strict";\n'];
  let from = 0;
  for (const { pos, patch } of at) {
    if (pos < from) throw new Error(`pdf.js worker patch "${patch.name}" overlaps another`);
    parts.push(source.slice(from, pos), patch.to);
    from = pos + patch.from.length;
  }
  parts.push(source.slice(from));
  return parts.join("");
}

/** The worker module in use, and whether it is the patched one (else why not). */
export interface LoadedWorker {
  module: PdfjsWorkerModule;
  patched: boolean;
  reason?: string;
}

/**
 * The pdf.js worker module with the text-builder patches when the installed bundle is the
 * one they were written for, else the library's own module and the reason.
 */
export async function loadPdfjsWorker(): Promise<LoadedWorker> {
  let reason: string;
  try {
    const url = import.meta.resolve(WORKER_SPECIFIER);
    const bytes = await Deno.readFile(new URL(url));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex === PATCHED_WORKER_SHA256) {
      const body = patchWorkerSource(new TextDecoder().decode(bytes));
      const run = new Function("__importMetaUrl", "__import", body) as (
        metaUrl: string,
        load: (u: string) => Promise<unknown>,
      ) => PdfjsWorkerModule;
      return { module: run(url, (u) => import(u)), patched: true };
    }
    reason = `${url} is not the pdf.js worker the patches were written for (sha256 ${hex})`;
  } catch (e) {
    reason = `pdf.js worker not patched: ${e instanceof Error ? e.message : String(e)}`;
  }
  return { module: await import("pdfjs-dist/legacy/build/pdf.worker.mjs"), patched: false, reason };
}
