// The esbuild plugin (tsup.config.ts) that puts ajv's standalone code for docs/scenario.schema.json in place of
// src/scenario/schema-validators.ts, so that the package validates with no ajv installed (docs/decisions, "light
// install"). The code is compiled here, at build time, with the options the sources compile with at run time; every
// schema object it names is rebound to the one the bundle imports (the same JSON module schema.ts reads), so an
// error's parentSchema is that object, as with ajv at run time (schema.ts finds its messages by that identity).
import type { Plugin } from 'esbuild'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const schemaFile = new URL('../docs/scenario.schema.json', import.meta.url).pathname
const validatorsFile = new URL('../src/scenario/schema-validators.ts', import.meta.url).pathname

/** The standalone module: the same exports as schema-validators.ts (schemaValidator, AJV_OPTIONS), no ajv. */
export function standaloneValidators(): string {
  const require = createRequire(import.meta.url)
  const { default: Ajv } = require('ajv') as typeof import('ajv')
  const standaloneCode = (require('ajv/dist/standalone') as typeof import('ajv/dist/standalone')).default
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $id: string; $defs: Record<string, unknown> }
  const options = /export const AJV_OPTIONS = (\{[^}]*\})/.exec(readFileSync(validatorsFile, 'utf8'))?.[1]
  if (!options) throw new Error('schema-standalone: no AJV_OPTIONS in src/scenario/schema-validators.ts')
  const ajv = new Ajv({ ...(Function(`return ${options}`)() as object), code: { source: true, esm: true } })
  ajv.addSchema(schema)
  const refs: Record<string, string> = { scenario: schema.$id }
  for (const def of Object.keys(schema.$defs)) refs[def] = `${schema.$id}#/$defs/${def}`
  let code = standaloneCode(ajv, refs)
  // Each schema the code holds as a literal copy: the whole file, or one definition of it.
  const places = new Map<string, string>([[JSON.stringify(schema), '__schemaFile']])
  for (const [def, node] of Object.entries(schema.$defs)) places.set(JSON.stringify(node), `__schemaFile.$defs[${JSON.stringify(def)}]`)
  code = code.replace(/const (schema\d+) = (\{.*?\});(?=const |function |export )/g, (all, name: string, literal: string) => {
    const place = places.get(literal)
    if (!place) throw new Error(`schema-standalone: ${name} is no definition of the schema`)
    return `const ${name} = ${place};`
  })
  if (/const schema\d+ = \{/.test(code)) throw new Error('schema-standalone: a schema literal was left in the code')
  // The one runtime helper the code requires from ajv: a string's length in code points (minLength).
  code = code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, 'codePointLength')
  if (/require\(/.test(code)) throw new Error(`schema-standalone: the code requires ${/require\([^)]*\)/.exec(code)?.[0]}`)
  return `import __schemaFile from ${JSON.stringify(schemaFile)}
function codePointLength(s) { let n = 0; for (const _ of s) n++; return n }
${code.replace(/^"use strict";/, '')}
const validators = { ${Object.keys(refs).join(', ')} }
export const AJV_OPTIONS = ${options}
export function schemaValidator(def) { return Object.hasOwn(validators, def) ? validators[def] : undefined }
`
}

/** Replaces src/scenario/schema-validators.ts with {@link standaloneValidators} in a build. */
export const schemaStandalone: Plugin = {
  name: 'schema-standalone',
  setup(build) {
    let code: string | undefined
    build.onLoad({ filter: /[\\/]src[\\/]scenario[\\/]schema-validators\.ts$/ }, () => ({ contents: (code ??= standaloneValidators()), loader: 'js', resolveDir: new URL('../src/scenario', import.meta.url).pathname }))
  },
}
