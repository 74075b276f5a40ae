/**
 * The price of tokens, per model family, shipped with Byre: to estimate what a session cost where the CLI
 * did not say (its own session files never do). Rates are US dollars per million tokens, from Anthropic's
 * public pricing page. A cache write costs 1.25x input for 5 minutes and 2x for an hour; a cache read 0.1x.
 * A model the table does not know gets no price (null), never a guess. Pure.
 */

/** When the rates below were last checked against the pricing page (YYYY-MM-DD). */
export const PRICING_CHECKED_AT = '2026-12-02';

export interface Rates {
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

function rates(input: number, output: number): Rates {
  return { input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead: input / 10 };
}

/** Families by a pattern of the API's model id, first match wins (newer ids before the older they contain). */
const FAMILIES: { family: string; pattern: RegExp; rates: Rates }[] = [
  { family: 'Opus 4.5+', pattern: /^claude-opus-4-[5-9](\D|$)/, rates: rates(5, 25) },
  { family: 'Opus 4/4.1', pattern: /^claude-opus-4(-[01])?(\D|$)/, rates: rates(15, 75) },
  { family: 'Opus 3', pattern: /^claude-3-opus/, rates: rates(15, 75) },
  { family: 'Sonnet 4.x', pattern: /^claude-sonnet-4(\D|$)/, rates: rates(3, 15) },
  { family: 'Sonnet 3.x', pattern: /^claude-3-[57]-sonnet/, rates: rates(3, 15) },
  { family: 'Haiku 4.5+', pattern: /^claude-haiku-4(\D|$)/, rates: rates(1, 5) },
  { family: 'Haiku 3.5', pattern: /^claude-3-5-haiku/, rates: rates(0.8, 4) },
  { family: 'Haiku 3', pattern: /^claude-3-haiku/, rates: rates(0.25, 1.25) },
];

/** The rates of a model id ("claude-sonnet-4-5-20250929"), or null for a model the table does not know. */
export function ratesOf(model: string): Rates | null {
  // Bedrock and Vertex spell ids with a provider prefix ("anthropic.claude-…", "us.anthropic.claude-…").
  const id = model.toLowerCase().replace(/^(?:[a-z]{2}\.)?anthropic\./, '');
  return FAMILIES.find((family) => family.pattern.test(id))?.rates ?? null;
}

export interface PricedTokens {
  input: number;
  output: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  cacheRead: number;
}

/** What tokens of `model` cost in dollars, or null when the model has no price. */
export function priceOf(model: string, tokens: PricedTokens): number | null {
  const r = ratesOf(model);
  if (!r) return null;
  const cost =
    tokens.input * r.input +
    tokens.output * r.output +
    tokens.cacheWrite5m * r.cacheWrite5m +
    tokens.cacheWrite1h * r.cacheWrite1h +
    tokens.cacheRead * r.cacheRead;
  return cost / 1_000_000;
}
