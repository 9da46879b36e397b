// Text a payer reads (a charge's description in their banking app and on the receipt, the payer and receiver names)
// and every other text a merchant writes that reaches a payer, a statement or a webhook: free of the characters that
// change what is displayed without being seen, and cut where the reader sees a whole character.

/**
 * Unicode format characters (General_Category Cf) are invisible: bidirectional controls (an RLO turns "Pedido 123
 * (reembolso 10%)" into something else on screen, "Trojan Source"), zero-width spaces and joiners, the soft hyphen,
 * the word joiner and BOM, invisible operators, tag characters (which can spell a hidden text) and the like. Two
 * "identical" descriptions can differ by one of them, and plain text needs none: the bidirectional algorithm lays out
 * Arabic or Hebrew from the letters themselves. All are removed, with two exceptions that are part of a visible
 * character (docs/decisions.md):
 * - ZWJ (U+200D) between two pictographs, as in an emoji ZWJ sequence (👨‍👩‍👧, 🏳️‍🌈, with variation selector or skin tone
 *   between): without it the family would become three people;
 * - tag characters inside an emoji flag tag sequence (🏴 + lower-case letters or digits + CANCEL TAG: 🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland).
 * A ZWJ or ZWNJ anywhere else goes (Persian or Indic text keeps its letters, only an optional joining hint is lost),
 * and so does the soft hyphen (a line-break hint).
 */
const FORMAT_CHARS =
  /(\p{Extended_Pictographic}(?:\u{FE0E}|\u{FE0F}|\p{Emoji_Modifier})*\u200D(?=\p{Extended_Pictographic}))|(\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,8}\u{E007F})|\p{Cf}/gu;

export const stripFormatChars = (text: string): string =>
  text.replace(FORMAT_CHARS, (_m, emoji?: string, flag?: string) => emoji ?? flag ?? '');

const graphemes = new Intl.Segmenter('pt-BR', { granularity: 'grapheme' });
const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * `text` in at most `max` code points (the unit of JSON Schema's maxLength, which the API Pix limits are written in,
 * and of PostgreSQL's varchar), cut between grapheme clusters: never inside a surrogate pair (`slice` would leave half
 * of one), nor between a letter and its accent, nor inside an emoji sequence or a flag. A single cluster longer than
 * `max` (only a crafted one is) is cut between code points.
 */
export function truncateText(text: string, max: number): string {
  if (codePoints(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const n = codePoints(segment);
    if (used + n > max) break;
    out += segment;
    used += n;
  }
  return out || [...text].slice(0, max).join('');
}

// What the payer is shown of a text: no format characters, at most `max` code points.
export const payerText = (text: string, max: number): string => truncateText(stripFormatChars(text), max);
