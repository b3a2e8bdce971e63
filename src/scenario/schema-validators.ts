import { createRequire } from 'node:module'
import schema from '../../docs/scenario.schema.json'

// The validators of docs/scenario.schema.json, one per definition. Here (the sources, as the repository's tests run
// them) ajv compiles them on first use. The package does not depend on ajv: its build (tsup.config.ts, with
// scripts/schema-standalone.ts) puts ajv's standalone code for the same schema and options in place of this module,
// compiled once at build time, whose errors are the same objects (parentSchema included) that ajv gives here.

/** One of ajv's errors (verbose: `parentSchema` is the schema object that holds the failed keyword). */
export interface AjvError {
  instancePath: string
  schemaPath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
  parentSchema?: { properties?: Record<string, unknown> }
}
/** A compiled validator: true when `data` is valid, else false with `errors` set. */
export type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null }

/** The options both ways compile with (scripts/schema-standalone.ts reads them from here). */
export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const

interface AjvInstance {
  compile(s: object): Validate
  getSchema(ref: string): Validate | undefined
}
let ajv: AjvInstance | undefined

/** The validator of a definition of the schema (`'scenario'`: the whole file), or undefined when there is none. */
export function schemaValidator(def: string): Validate | undefined {
  if (!ajv) {
    // Loaded on first use, synchronously: `dockside serve` without input to check never pays for ajv.
    const mod = createRequire(import.meta.url)('ajv') as { default: new (o: object) => AjvInstance }
    ajv = new mod.default(AJV_OPTIONS)
    ajv.compile(schema)
  }
  return def === 'scenario' ? ajv.getSchema(schema.$id) : ajv.getSchema(`${schema.$id}#/$defs/${def}`)
}
