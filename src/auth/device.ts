// A sign-in's device in words, from its User-Agent: what the session list shows («Chrome, Windows»).
// A few well-known patterns, most specific first; anything else is shown by its product token.

const BROWSERS: Array<[RegExp, string]> = [
  [/\bYaBrowser\//, 'Яндекс Браузер'],
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
]

const SYSTEMS: Array<[RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
]

/** 'Chrome, Windows', 'Safari, iPhone', 'curl/8.5.0'; null for an empty header. */
export function deviceName(userAgent: string): string | null {
  const ua = userAgent.trim()
  if (!ua) return null
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1]
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1]
  if (browser || system) return [browser, system].filter(Boolean).join(', ')
  // a program (the terminal client, curl, an SDK): its first product token
  return ua.split(/\s+/)[0]!.slice(0, 60)
}
