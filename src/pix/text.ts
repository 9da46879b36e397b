// Text a payer reads (a charge's description in their banking app and on the receipt, the payer and receiver names):
// free of the characters that reorder what is displayed, and cut where the reader sees a whole character.

// Bidirectional formatting characters (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI, LRM, RLM, ALM): an RLO turns
// "Pedido 123 (reembolso 10%)" into something else on screen ("Trojan Source"). Plain text needs none of them: the
// Unicode bidirectional algorithm already lays out Arabic or Hebrew from the letters themselves.
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/gu;

export const stripBidiControls = (text: string): string => text.replace(BIDI_CONTROLS, '');

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

// What the payer is shown of a text: no bidi controls, at most `max` code points.
export const payerText = (text: string, max: number): string => truncateText(stripBidiControls(text), max);
