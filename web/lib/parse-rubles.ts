/** What a rubles field (components/input.tsx MoneyInput) holds: '1 000', '99,5', '250.00' → a number; anything that is not a plain decimal → NaN. */
export function parseRubles(raw: string): number {
  const text = raw.replace(/[\s\u00a0]/g, '').replace(',', '.')
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN
}
