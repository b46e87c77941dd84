// Bundles the SPA (web/index.html → dist/web) and the landing (web/landing.html) with Tailwind,
// and copies the API reference UI (dist/api-docs, see the end). Run by `bun run build` and before
// `bun start`.
// The landing is its own light entry (issue 29): React, the public layout and the landing, with a
// stylesheet of only the classes those files use (web/landing.css); the server sends it for `/`.
// The SPA's entry chunk holds the shell and the router; every screen (the whole /app area, the
// blog, legal pages, docs, sign-in, the landing reached from inside the SPA) is a chunk loaded by
// React.lazy when opened. dist/web/build-manifest.json records which files each entry and each
// lazy screen became, so the server can preload the chunk of the page it sends and
// bench/bundle.ts can measure what the landing loads.

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import tailwind from 'bun-plugin-tailwind'

const outdir = 'dist/web'
rmSync(outdir, { recursive: true, force: true })
const result = await Bun.build({
  entrypoints: ['web/index.html', 'web/landing.html'],
  outdir,
  minify: true,
  splitting: true,
  sourcemap: 'linked',
  publicPath: '/',
  plugins: [tailwind],
  define: { 'process.env.NODE_ENV': '"production"' },
  naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
  metafile: true,
})
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}

type MetaOutput = { entryPoint?: string; imports: Array<{ path: string; kind: string }> }
const outputs = (result.metafile?.outputs ?? {}) as Record<string, MetaOutput>
const norm = (p: string) => p.replace(/^\.\//, '')

/** A file and every chunk it imports statically (what loading it really costs). */
function closure(file: string): string[] {
  const seen = new Set<string>()
  const visit = (f: string) => {
    if (seen.has(f)) return
    seen.add(f)
    for (const i of outputs[`./${f}`]?.imports ?? []) if (i.kind === 'import-statement') visit(norm(i.path))
  }
  visit(file)
  return [...seen]
}

const files = Object.entries(outputs).map(([path, o]) => ({ file: norm(path), ...o }))
const HTML_ENTRIES = ['web/index.html', 'web/landing.html']
/** What an HTML entry loads before its page works: its script with what that imports, its stylesheet. */
function htmlEntry(html: string) {
  const js = files.find((f) => f.entryPoint === html && f.file.endsWith('.js'))
  if (!js) throw new Error(`no entry chunk for ${html} in the build output`)
  return { js: closure(js.file), css: files.filter((f) => f.entryPoint === html && f.file.endsWith('.css')).map((f) => f.file) }
}
const manifest = {
  /** the SPA (index.html): every path but `/` */
  entry: htmlEntry('web/index.html'),
  /** the landing (landing.html): `/` */
  landing: htmlEntry('web/landing.html'),
  /** source file of a lazily imported module → its chunk and the chunks it imports statically */
  lazy: Object.fromEntries(files.filter((f) => f.entryPoint && !HTML_ENTRIES.includes(f.entryPoint) && f.file.endsWith('.js')).map((f) => [f.entryPoint!, closure(f.file)])),
}

// landing.css keeps Tailwind's classes of the files it names only: a file of web/ the landing is
// built from but landing.css does not name would show unstyled, so the build stops instead.
const landingSources = [...readFileSync('web/landing.css', 'utf8').matchAll(/@source\s+"\.\/([^"]+)"/g)].map((m) => `web/${m[1]}`)
const landingInputs = new Set(manifest.landing.js.flatMap((f) => Object.keys((outputs[`./${f}`] as { inputs?: Record<string, unknown> }).inputs ?? {})))
const unstyled = [...landingInputs].filter((i) => /^web\/.*\.tsx?$/.test(i) && !landingSources.some((s) => i === s || i.startsWith(`${s}/`)))
if (unstyled.length) {
  console.error(`web/landing.css has no @source for what the landing imports: ${unstyled.join(', ')}`)
  process.exit(1)
}
writeFileSync(`${outdir}/build-manifest.json`, JSON.stringify(manifest, null, 2))

// A gzip twin of every script and stylesheet: the server sends it to browsers that accept gzip,
// so the landing's transfer matches bench/bundle.ts even without a compressing proxy in front.
for (const o of result.outputs) if (/\.(js|css)$/.test(o.path)) writeFileSync(`${o.path}.gz`, Bun.gzipSync(new Uint8Array(await Bun.file(o.path).arrayBuffer()), { level: 9 }))

// public/ holds files served as-is at the site root (favicon, og-image…).
if (existsSync('public')) cpSync('public', outdir, { recursive: true })
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
for (const o of result.outputs) if (!o.path.endsWith('.map')) console.log(`  ${o.path.replace(`${process.cwd()}/`, '')}  ${kb(o.size)}`)

// The API reference UI at /api/docs (src/spa/api-docs.ts): Scalar's self-contained browser bundle,
// from the npm package pinned exactly in package.json, served from our own origin instead of a CDN.
// The file name carries a hash of the content, so the server can cache it for a year.
const scalarDir = dirname(Bun.resolveSync('@scalar/api-reference/package.json', process.cwd()))
const scalarVersion: string = JSON.parse(readFileSync(join(scalarDir, 'package.json'), 'utf8')).version
// Zod inside the bundle probes for eval with `Function('')` to pick its JIT; /api/docs has no
// 'unsafe-eval', so the probe only fails with a CSP violation report and Zod takes its plain path
// anyway. The probe is answered "no" up front: same behaviour, no violation. Not found (a new
// version): left as is, and e2e/security.e2e.ts reports the violation.
const EVAL_PROBE = 'try{return Function(``),!0}catch{return!1}'
let scalarJs = readFileSync(join(scalarDir, 'dist/browser/standalone.js'), 'utf8')
  // The 17 MB source map is not shipped: drop the comment that would make DevTools ask for it.
  .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n')
if (scalarJs.split(EVAL_PROBE).length === 2) scalarJs = scalarJs.replace(EVAL_PROBE, 'return!1')
else console.warn(`  @scalar/api-reference ${scalarVersion}: Zod's eval probe not found once; left as is`)
const docsDir = 'dist/api-docs'
rmSync(docsDir, { recursive: true, force: true })
mkdirSync(docsDir, { recursive: true })
const scalarFile = `scalar-${scalarVersion}-${Bun.hash(scalarJs).toString(36).slice(0, 8)}.js`
writeFileSync(join(docsDir, scalarFile), scalarJs)
writeFileSync(join(docsDir, `${scalarFile}.gz`), Bun.gzipSync(new TextEncoder().encode(scalarJs), { level: 9 }))
writeFileSync(join(docsDir, 'manifest.json'), JSON.stringify({ version: scalarVersion, script: scalarFile }, null, 2))
console.log(`  ${docsDir}/${scalarFile}  ${kb(Buffer.byteLength(scalarJs))} (@scalar/api-reference ${scalarVersion})`)
