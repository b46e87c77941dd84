// The module boundaries between the server, the SPA and the CLI (issue 17, point 10), and between
// the server's features (issue 23, point 11):
// - src/ never imports from web/ (types included): what both need lives in src/content/;
// - web/ and cli/ take from src/ only src/content/ (pure, browser-safe) and types (src/wire.ts):
//   anything else would pull Elysia, Drizzle or bun:sqlite into the SPA bundle or the CLI;
// - src/content/ itself imports at runtime only src/content/ and browser-safe packages;
// - a feature never imports another feature's queries (store.ts) or routes (index.ts): it reaches
//   the other feature through its service (schemas are shared for joins; app.ts composes the routes);
// - the money kernel (src/money) has one door, its index.ts: nothing outside imports its files, and
//   it imports no feature's service or routes; src/db (dialect plumbing) imports no feature (issue 34).
// - in the SPA (issue 34, point 3) a feature under web/features/ never imports another one, types
//   included: what two features share lives in web/components/ or web/lib/, and a screen that shows
//   several features is composed in web/app/; web/components/, web/lib/ and web/stores/ import no feature.
// Runtime imports are read with Bun's transpiler, which drops `import type` and all-type
// `import { type X }` exactly as the bundler does, so a type-only import of a wire type passes.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const transpilers = { ts: new Bun.Transpiler({ loader: 'ts' }), tsx: new Bun.Transpiler({ loader: 'tsx' }) }

function sources(dir: string): string[] {
  return [...new Bun.Glob('**/*.{ts,tsx}').scanSync({ cwd: join(ROOT, dir) })].filter((f) => !f.includes('node_modules')).map((f) => join(dir, f))
}

/** Every module specifier in the file, type-only imports included (static, dynamic, re-exports). */
function allSpecifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"\n]+)['"]/g)].map((m) => m[1]!)
}

/** The specifiers that survive compilation: what the bundle or the runtime really loads. */
function runtimeSpecifiers(file: string): string[] {
  const transpiler = file.endsWith('.tsx') ? transpilers.tsx : transpilers.ts
  // a shebang line (cli/index.ts) is not TypeScript
  const code = readFileSync(join(ROOT, file), 'utf8').replace(/^#!.*/, '')
  return transpiler.scanImports(code).map((i) => i.path)
}

/** A relative specifier as a repository path ('src/content/seo'); a package name as it is. */
function target(file: string, spec: string): string {
  return spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : spec
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file)
const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`)

/** Local types that share a wire type's name but are something else. */
const SAME_NAME_OTHER_THING = new Set([
  'cli/lib/config.ts:Session', // the CLI's stored sign-in (tokens), not an /api/auth/sessions item
  'cli/lib/chat-client.ts:ChatMessage', // a turn of the terminal chat, not a saved Playground message
])

/** Packages src/content may load at runtime: they run in the browser and on the server alike. */
const CONTENT_PACKAGES = new Set(['marked'])

describe('module boundaries', () => {
  test('src/ imports nothing from web/ (tests and types included)', () => {
    const files = sources('src')
    expect(files.length).toBeGreaterThan(100)
    const offences = files.flatMap((file) =>
      allSpecifiers(file)
        .filter((spec) => under(target(file, spec), 'web') || /(^|\/)web\//.test(spec))
        .map((spec) => `${file} → ${spec}`),
    )
    expect(offences).toEqual([])
  })

  test('web/ and cli/ load from src/ only src/content/; other src/ modules only as types', () => {
    // Tests of the CLI start a real server (src/test-support): they are not shipped.
    const files = [...sources('web'), ...sources('cli')].filter((f) => !isTest(f))
    const reaching = files.flatMap((file) => runtimeSpecifiers(file).map((spec) => ({ file, spec, path: target(file, spec) })))
    // the scanner sees the allowed imports, so an empty offence list is not a blind scanner
    expect(reaching.some((r) => under(r.path, 'src/content'))).toBe(true)
    const offences = reaching.filter((r) => under(r.path, 'src') && !under(r.path, 'src/content')).map((r) => `${r.file} → ${r.spec}`)
    expect(offences).toEqual([])
  })

  test('web/ and cli/ do not re-declare a wire type by hand (they import it from src/wire.ts)', () => {
    const wireNames = [...readFileSync(join(ROOT, 'src/wire.ts'), 'utf8').matchAll(/^export type (\w+)/gm)].map((m) => m[1]!)
    expect(wireNames).toContain('ApiKey')
    const files = [...sources('web'), ...sources('cli')].filter((f) => !isTest(f))
    expect(files.filter((file) => allSpecifiers(file).some((spec) => target(file, spec) === 'src/wire')).length).toBeGreaterThan(5)
    // a hand-written object shape under a wire type's name: `interface ApiKey {` or `type ApiKey = {`
    const shape = new RegExp(`\\b(?:interface\\s+(${wireNames.join('|')})\\b|type\\s+(${wireNames.join('|')})\\s*=\\s*\\{)`, 'g')
    const offences = files.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(shape)].map((m) => `${file}:${m[1] ?? m[2]}`))
    expect(offences.filter((o) => !SAME_NAME_OTHER_THING.has(o))).toEqual([])
  })

  test('features reach each other only through their service (or schema, for joins): another feature’s queries and routes are off limits', () => {
    // A feature is a folder of src/ with routes or a service; db, lib, content and test-support are shared layers.
    const SHARED = new Set(['db', 'lib', 'content', 'test-support', 'money'])
    const featureOf = (path: string) => {
      const m = path.match(/^src\/([^/]+)\//)
      return m && !SHARED.has(m[1]!) ? m[1]! : null
    }
    const files = sources('src').filter((f) => !isTest(f) && featureOf(f))
    expect(files.length).toBeGreaterThan(50)
    const crossings = files.flatMap((file) => allSpecifiers(file).map((spec) => ({ file, path: target(file, spec) })))
    // the scanner sees the allowed crossings (services, schemas), so an empty offence list is not a blind scanner
    expect(crossings.some((c) => featureOf(`${c.path}.ts`) && featureOf(`${c.path}.ts`) !== featureOf(c.file) && c.path.endsWith('/service'))).toBe(true)
    const offences = crossings
      .filter((c) => {
        const other = featureOf(`${c.path}.ts`)
        // A feature's queries are its own (store.ts); its routes (index.ts) are composed by src/app.ts only.
        return other && other !== featureOf(c.file) && /\/(store|index)$/.test(c.path)
      })
      .map((c) => `${c.file} → ${c.path}`)
    expect(offences).toEqual([])
  })

  test('the money kernel has one door: outside src/money only src/money/index.ts is imported (tests included)', () => {
    // The drizzle schema aggregate lists every table, the money tables among them.
    const ALLOWED = new Set(['src/db/schema.ts → src/money/schema'])
    const files = [...sources('src'), ...sources('bench'), ...sources('scripts'), ...sources('cli')].filter((f) => !under(f, 'src/money'))
    const reaching = files.flatMap((file) => allSpecifiers(file).map((spec) => ({ file, path: target(file, spec) })))
    expect(reaching.filter((r) => r.path === 'src/money').length).toBeGreaterThan(20)
    const offences = reaching
      .filter((r) => under(r.path, 'src/money') && r.path !== 'src/money' && r.path !== 'src/money/index')
      .map((r) => `${r.file} → ${r.path}`)
      .filter((o) => !ALLOWED.has(o))
    expect(offences).toEqual([])
  })

  test('the money kernel and src/db reach no feature but its tables; src/db reaches no money', () => {
    const FEATURE_SHARED = new Set(['db', 'lib', 'content', 'test-support', 'money'])
    const featureFile = (path: string) => {
      const m = path.match(/^src\/([^/]+)\/(.+)$/)
      return m && !FEATURE_SHARED.has(m[1]!) ? m[2]! : null
    }
    const files = [...sources('src/money'), ...sources('src/db')].filter((f) => !isTest(f))
    const reaching = files.flatMap((file) => runtimeSpecifiers(file).map((spec) => ({ file, path: target(file, spec) })))
    // Tables only (users, teams, keys: the balances and budgets the kernel moves) and the names a
    // usage row records (upstream/names), never a feature's logic.
    const offences = reaching
      .filter((r) => {
        const inFeature = featureFile(r.path)
        if (inFeature !== null) return inFeature !== 'schema' && r.path !== 'src/upstream/names'
        return under(r.file, 'src/db') && under(r.path, 'src/money') && r.file !== 'src/db/schema.ts'
      })
      .map((r) => `${r.file} → ${r.path}`)
    expect(offences).toEqual([])
  })

  test('src/content/ loads only src/content/ and browser-safe packages', () => {
    const files = sources('src/content').filter((f) => !isTest(f))
    expect(files.length).toBeGreaterThan(0)
    const offences = files.flatMap((file) =>
      runtimeSpecifiers(file)
        .filter((spec) => (spec.startsWith('.') ? !under(target(file, spec), 'src/content') : !CONTENT_PACKAGES.has(spec)))
        .map((spec) => `${file} → ${spec}`),
    )
    expect(offences).toEqual([])
  })

  test('web/features/<f> imports no other feature (types included); web/components, web/lib and web/stores import none', () => {
    const webFeatureOf = (path: string) => path.match(/^web\/features\/([^/]+)\//)?.[1] ?? null
    const imports = sources('web').flatMap((file) => allSpecifiers(file).map((spec) => ({ file, path: target(file, spec) })))
    // the scanner sees a feature's own imports and web/app composing features, so an empty offence list is not a blind scanner
    expect(imports.some((i) => webFeatureOf(i.file) && webFeatureOf(`${i.path}.ts`) === webFeatureOf(i.file))).toBe(true)
    expect(imports.some((i) => under(i.file, 'web/app') && webFeatureOf(`${i.path}.ts`))).toBe(true)
    const offences = imports
      .filter((i) => {
        const to = webFeatureOf(`${i.path}.ts`)
        if (!to) return false
        const from = webFeatureOf(i.file)
        return from ? from !== to : ['web/components', 'web/lib', 'web/stores'].some((dir) => under(i.file, dir))
      })
      .map((i) => `${i.file} → ${i.path}`)
    expect(offences).toEqual([])
  })
})
