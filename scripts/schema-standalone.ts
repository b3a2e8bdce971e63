// The esbuild plugin (tsup.config.ts) that puts ajv's standalone code for docs/scenario.schema.json in place of
// src/scenario/schema-validators.ts, so that the package validates with no ajv installed (docs/decisions, "light
// install"). The code is compiled here, at build time, with the options the sources compile with at run time, and
// written once, minified, to dist/schema-validators.cjs: the Node builds (ESM and CommonJS) require() it on the first
// validation, as the sources load ajv; the browser bundle imports it. It is a function of the schema object, and names
// every schema through it: an error's parentSchema is the object the bundle imported (the JSON module schema.ts
// reads), as with ajv at run time (schema.ts finds its messages by that identity).
import { transformSync, type Plugin } from 'esbuild'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const schemaFile = new URL('../docs/scenario.schema.json', import.meta.url).pathname
const validatorsFile = new URL('../src/scenario/schema-validators.ts', import.meta.url).pathname
const OUT = 'schema-validators.cjs'

/** The options src/scenario/schema-validators.ts compiles with, as their source text. */
function ajvOptions(): string {
  const options = /export const AJV_OPTIONS = (\{[^}]*\})/.exec(readFileSync(validatorsFile, 'utf8'))?.[1]
  if (!options) throw new Error('schema-standalone: no AJV_OPTIONS in src/scenario/schema-validators.ts')
  return options
}

/** dist/schema-validators.cjs: `module.exports = (schema) => ({ scenario, duration, fault, ... })`, minified. */
export function standaloneValidators(): string {
  const require = createRequire(import.meta.url)
  const { default: Ajv } = require('ajv') as typeof import('ajv')
  const standaloneCode = (require('ajv/dist/standalone') as typeof import('ajv/dist/standalone')).default
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $id: string; $defs: Record<string, unknown> }
  const ajv = new Ajv({ ...(Function(`return ${ajvOptions()}`)() as object), code: { source: true, esm: true } })
  ajv.addSchema(schema)
  const refs: Record<string, string> = { scenario: schema.$id }
  for (const def of Object.keys(schema.$defs)) refs[def] = `${schema.$id}#/$defs/${def}`
  let code = standaloneCode(ajv, refs).replace(/^"use strict";/, '')
  // Each schema the code holds as a literal copy (the whole file, or one definition) becomes the place in the one given.
  const places = new Map<string, string>([[JSON.stringify(schema), 'schema']])
  for (const [def, node] of Object.entries(schema.$defs)) places.set(JSON.stringify(node), `schema.$defs[${JSON.stringify(def)}]`)
  code = code.replace(/const (schema\d+) = (\{.*?\});(?=const |function |export )/g, (_all, name: string, literal: string) => {
    const place = places.get(literal)
    if (!place) throw new Error(`schema-standalone: ${name} is no definition of the schema`)
    return `const ${name} = ${place};`
  })
  if (/const schema\d+ = \{/.test(code)) throw new Error('schema-standalone: a schema literal was left in the code')
  // The one runtime helper the code requires from ajv: a string's length in code points (minLength).
  code = code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, 'codePointLength')
  if (/require\(|\bimport\b/.test(code)) throw new Error('schema-standalone: the code still loads a module')
  code = code.replace(/export const (\w+) = (validate\d+);/g, 'const $1 = $2;')
  if (/\bexport\b/.test(code)) throw new Error('schema-standalone: an export was left in the code')
  const source = `"use strict";
// ajv's standalone validators of dockside's docs/scenario.schema.json, generated at build time (scripts/schema-standalone.ts).
module.exports = function validators(schema) {
function codePointLength(s) { let n = 0; for (const _ of s) n++; return n }
${code}
return { ${Object.keys(refs).join(', ')} }
}
`
  return transformSync(source, { loader: 'js', minify: true, legalComments: 'none', target: 'es2022' }).code
}

/** Replaces src/scenario/schema-validators.ts in a build: see the top of this file. */
export const schemaStandalone: Plugin = {
  name: 'schema-standalone',
  setup(build) {
    const browser = build.initialOptions.platform === 'browser'
    const contents = browser
      ? `import validators from './${OUT}'
import schema from ${JSON.stringify(schemaFile)}
const all = validators(schema)
export const AJV_OPTIONS = ${ajvOptions()}
export function schemaValidator(def) { return Object.hasOwn(all, def) ? all[def] : undefined }
`
      : `import { createRequire } from 'node:module'
import schema from ${JSON.stringify(schemaFile)}
let all
export const AJV_OPTIONS = ${ajvOptions()}
export function schemaValidator(def) {
  all ??= createRequire(import.meta.url)('./${OUT}')(schema)
  return Object.hasOwn(all, def) ? all[def] : undefined
}
`
    build.onLoad({ filter: /[\\/]src[\\/]scenario[\\/]schema-validators\.ts$/ }, () => ({ contents, loader: 'js', resolveDir: new URL('../src/scenario', import.meta.url).pathname }))
    build.onResolve({ filter: new RegExp(`^\\./${OUT.replace('.', '\\.')}$`) }, (args) => ({ path: args.path, external: true }))
    if (browser) return
    build.onEnd(() => {
      const outdir = build.initialOptions.outdir ?? 'dist'
      mkdirSync(outdir, { recursive: true })
      writeFileSync(join(outdir, OUT), standaloneValidators())
    })
  },
}
