// Bundles the SPA (web/index.html → dist/web) with Tailwind. Run by `bun run build` and before `bun start`.
import tailwind from 'bun-plugin-tailwind'
import { cpSync, existsSync, rmSync } from 'node:fs'

const outdir = 'dist/web'
rmSync(outdir, { recursive: true, force: true })
const result = await Bun.build({
  entrypoints: ['web/index.html'],
  outdir,
  minify: true,
  splitting: true,
  sourcemap: 'linked',
  publicPath: '/',
  plugins: [tailwind],
  define: { 'process.env.NODE_ENV': '"production"' },
  naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
})
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}
// public/ holds files served as-is at the site root (favicon, robots.txt…).
if (existsSync('public')) cpSync('public', outdir, { recursive: true })
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
for (const o of result.outputs) if (!o.path.endsWith('.map')) console.log(`  ${o.path.replace(process.cwd() + '/', '')}  ${kb(o.size)}`)
