// Moscow time, the only time a person reads here: UTC+3 all year (no daylight saving since 2014), so
// plain arithmetic on epoch milliseconds is exact. The one place the offset is written: the money
// calendar, invoices and acts, CSV files, the status page, the SPA and the CLI all take it from here.

export const MSK_OFFSET_MS = 3 * 3600 * 1000

/** The offset as ISO 8601 writes it after a Moscow wall-clock time: `2026-01-01T00:00:00+03:00`. */
export const MSK_ISO_OFFSET = '+03:00'

/** Epoch ms of a Moscow wall-clock time given as `YYYY-MM-DD` and an optional `HH:MM:SS` (midnight by default). */
export const moscowMs = (day: string, time = '00:00:00') => Date.parse(`${day}T${time}${MSK_ISO_OFFSET}`)
