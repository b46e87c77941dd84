// What the landing page costs to load: the JavaScript and CSS that `/` pulls in (landing.html's
// entry chunk, every chunk it imports statically, its stylesheet), raw and gzip-compressed, plus
// the chunks that stay behind until a screen of the SPA needs them. Reads the build (`bun run build` first).
//
//   bun bench/bundle.ts                              table
//   bun bench/bundle.ts --json                       the same figures as JSON
//   bun bench/bundle.ts --url http://localhost:3000  also the HTML a running server sends for /
//
// Exit code 0 whatever the figures, 1 when the build is missing or the /app code leaked into
// the landing's files (the split this report exists to watch).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

const DIST = 'dist/web'
const TARGET_GZIP_KB = 100
const manifestPath = join(DIST, 'build-manifest.json')
if (!existsSync(manifestPath)) {
  console.error('No build found: run `bun run build` first.')
  process.exit(1)
}
type Entry = { js: string[]; css: string[] }
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { entry: Entry; landing?: Entry; lazy: Record<string, string[]> }
// the landing's own entry (issue 29); a build from before it: the SPA's, which then served `/`
const landingEntry = manifest.landing ?? manifest.entry
const shellName = manifest.landing ? 'landing.html' : 'index.html'
const html = readFileSync(join(DIST, shellName), 'utf8')

interface Measured {
  file: string
  raw: number
  gzip: number
}
const cache = new Map<string, Measured>()
function measure(file: string): Measured {
  let m = cache.get(file)
  if (!m) {
    const bytes = readFileSync(join(DIST, file))
    // the build's gzip twin is exactly what the server sends; else compress like a proxy would
    const twin = join(DIST, `${file}.gz`)
    m = { file, raw: bytes.length, gzip: existsSync(twin) ? readFileSync(twin).length : gzipSync(bytes, { level: 6 }).length }
    cache.set(file, m)
  }
  return m
}
const sum = (list: Measured[], key: 'raw' | 'gzip') => list.reduce((s, m) => s + m[key], 0)
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

// What the shell itself references (the manifest's entry closure must be exactly that JS).
const referenced = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!)
const landingJs = landingEntry.js.map(measure)
const landingCss = landingEntry.css.map(measure)
const urlArg = process.argv.indexOf('--url')
const served = urlArg > 0 ? await (await fetch(new URL('/', process.argv[urlArg + 1]!))).text() : null
// The server adds the page's metadata, JSON-LD and <noscript> text to the shell.
const htmlFile = served
  ? { file: 'HTML of / (as served)', raw: Buffer.byteLength(served), gzip: gzipSync(served, { level: 6 }).length }
  : { file: `${shellName} (shell)`, raw: Buffer.byteLength(html), gzip: gzipSync(html, { level: 6 }).length }

const appArea = manifest.lazy['web/app/app-area.tsx'] ?? []
const appOnly = appArea.filter((f) => !landingEntry.js.includes(f))
const leaked = appArea.length > 0 && appOnly.length === 0
const markerLeak = landingEntry.js.some((f) => readFileSync(join(DIST, f), 'utf8').includes('sidebar-balance'))

// every other page: the SPA's entry (index.html), then the chunk of the screen it shows
const spaJs = manifest.entry.js.map(measure)
const spaCss = manifest.entry.css.map(measure)
const lazy = Object.entries(manifest.lazy)
  .map(([source, files]) => {
    const own = files.filter((f) => !manifest.entry.js.includes(f)).map(measure)
    return { source, files: own.length, raw: sum(own, 'raw'), gzip: sum(own, 'gzip') }
  })
  .sort((a, b) => b.gzip - a.gzip)

const totalGzip = sum(landingJs, 'gzip') + sum(landingCss, 'gzip')
const report = {
  landing: {
    js: { files: landingJs, raw: sum(landingJs, 'raw'), gzip: sum(landingJs, 'gzip') },
    css: { files: landingCss, raw: sum(landingCss, 'raw'), gzip: sum(landingCss, 'gzip') },
    html: htmlFile,
    totalGzip,
    targetGzip: TARGET_GZIP_KB * 1024,
    withinTarget: totalGzip <= TARGET_GZIP_KB * 1024,
  },
  appSplitAway: !leaked && !markerLeak,
  spa: { js: sum(spaJs, 'raw'), gzip: sum(spaJs, 'gzip') + sum(spaCss, 'gzip') },
  lazy,
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2))
} else {
  console.log('Landing page (/): what the browser downloads before the page works\n')
  console.log('  file                                         raw        gzip')
  for (const m of [...landingJs, ...landingCss, htmlFile]) console.log(`  ${m.file.padEnd(42)} ${kb(m.raw).padStart(9)}  ${kb(m.gzip).padStart(9)}`)
  console.log(`  ${'JS + CSS total'.padEnd(42)} ${kb(report.landing.js.raw + report.landing.css.raw).padStart(9)}  ${kb(totalGzip).padStart(9)}`)
  console.log(`\n  target ≤ ${TARGET_GZIP_KB} KB gzip: ${report.landing.withinTarget ? 'met' : 'MISSED'}`)
  console.log(`  /app code split away: ${report.appSplitAway ? 'yes' : 'NO'}`)
  const unreferenced = landingJs.map((m) => m.file).filter((f) => !referenced.includes(f))
  if (unreferenced.length) console.log(`  (imported by the entry chunk: ${unreferenced.join(', ')})`)
  console.log(`\nEvery other page: the SPA's entry (index.html), ${kb(report.spa.gzip)} gzip of JS + CSS, then its screen's chunks:\n`)
  console.log('  screen                                       files   raw        gzip')
  for (const l of lazy) console.log(`  ${l.source.replace(/^web\//, '').padEnd(44)} ${String(l.files).padStart(3)}  ${kb(l.raw).padStart(9)}  ${kb(l.gzip).padStart(9)}`)
  console.log('\nData the landing fetches after load (not code): GET /api/blog/posts?limit=3 (the nine models come inline).')
}
process.exit(existsSync(join(DIST, 'index.html')) && report.appSplitAway ? 0 : 1)
