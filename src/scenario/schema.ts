import { MAX_DURATION_MS } from '../time/duration'
import { FieldError } from '../service/errors'
import type { SchemaCheck, SchemaDef } from '../faults/rule'
import schema from '../../docs/scenario.schema.json'
import { schemaValidator, type AjvError, type Validate } from './schema-validators'

// The one validator of field names and types: docs/scenario.schema.json, compiled once with ajv (at build time in the
// package: see schema-validators.ts). Scenario files, createDockside's scenario, fake.apply, fake.faults.add,
// fake.rateLimit.set and the admin API bodies all go through checkSchema, so each refusal reads the same on every way in.

const compiled = new Map<string, Validate>()

function validator(def: SchemaDef | 'scenario'): Validate {
  let v = compiled.get(def)
  if (v) return v
  v = schemaValidator(def)
  if (!v) throw new Error(`No definition "${def}" in docs/scenario.schema.json.`)
  compiled.set(def, v)
  return v
}

const DURATION = `must be a duration: milliseconds or a string like "250ms", "5s", "2m", "1h30m", from 0 to ${MAX_DURATION_MS} ms (100 years)`
const FAULT_ACTIONS = '"reply", "refuse", "error", "close", "drop", "reset", "truncate", "stall", "unreachable", "dribble" or "latency"'

type Node = Record<string, unknown> & { oneOf?: Node[]; properties?: Record<string, Node>; items?: Node }
const defs = schema.$defs as unknown as Record<string, Node>
const props = schema.properties as unknown as Record<string, Node>

/**
 * Messages for the schema places whose ajv wording says nothing useful: a oneOf or not (a duration, a
 * step's or rule's one action), used for the place's own error and for errors of its shapeless branches.
 */
const HOLDERS = new Map<unknown, string>([
  [defs.duration, DURATION],
  [props.timeline.items, 'must have exactly one action: "start", "stop", "create" (with "image"), "remove", "restart", "close", "drop", "faults" or "push"; or none, with a "say" caption or a "pause"'],
  [defs.fault, `must have exactly one action: ${FAULT_ACTIONS} ("refuse" may carry "reply" as its status)`],
  [defs.registry, 'takes either "token" or "username" and "password", not both'],
  [defs.image.properties!.layers, 'must be a layer count from 1 to 127 or a non-empty list of sizes in bytes (or of recorded layers, { digest, size })'],
  [defs.fault.properties!.times, 'must be an integer >= 1 or "always"'],
  [defs.rateLimitConfig, 'must be a rate limit like {"route":"events","limit":5,"window":"10s"} or a list of them'],
  [props.clock, 'must be one of "virtual", "auto", "real", or an object with mode, start and speed'],
])
const BRANCHES = new Map<unknown, string>()
for (const [place, message] of HOLDERS) for (const branch of (place as Node).oneOf ?? []) if (place === defs.duration || (!branch.$ref && !branch.type)) BRANCHES.set(branch, message)
/** A hint after the list of allowed fields of an object. */
const HINTS = new Map<unknown, string>([
  [defs.fault.properties!.close, '; "afterMessages" and "afterTime" go on the rule itself'],
  [schema, '; and any key starting with "x-" (ignored: a holder of YAML anchors, as in compose files)'],
])
/** What a string that does not match a pattern is told, instead of the pattern itself. */
const PATTERNS = new Map<unknown, string>([[defs.registry.properties!.host, 'must be a registry host: host or host:port (host of [a-zA-Z0-9.-] or an IPv6 address in brackets, neither part empty, a port from 1 to 65535), e.g. "localhost:5000" or "[::1]:5000"']])

const TYPE_NAMES: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'an object', array: 'a list', null: 'null' }

function describe(e: AjvError): string {
  // A oneOf (a duration, a step's action) explains itself better than any of its branches.
  const special = e.keyword === 'oneOf' || e.keyword === 'not' ? HOLDERS.get(e.parentSchema) : BRANCHES.get(e.parentSchema)
  if (special) return special
  const p = e.params
  switch (e.keyword) {
    case 'additionalProperties': {
      const allowed = Object.keys(e.parentSchema?.properties ?? {}).filter((k) => k !== '$schema')
      return `unknown field "${p.additionalProperty}"; allowed: ${allowed.join(', ')}${HINTS.get(e.parentSchema) ?? ''}`
    }
    case 'required':
      return `missing required field "${p.missingProperty}"`
    case 'type': {
      const types = String(p.type).split(',')
      return `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}`
    }
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${p.comparison} ${p.limit}`
    case 'minLength':
      return 'must be a non-empty string'
    case 'minItems':
      return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`
    case 'pattern':
      return PATTERNS.get(e.parentSchema) ?? `must match ${p.pattern}`
    case 'dependencies':
      return `"${p.property}" needs "${p.missingProperty}" too`
    default:
      return e.message ?? 'is not valid'
  }
}

/** `/rules/2/match/route` → `rules[2].match.route` */
const toPath = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '')

/** The first problem of `value` against a definition of the schema, or undefined when it is valid. */
export function schemaProblem(def: SchemaDef | 'scenario', value: unknown): { path: string; expected: string } | undefined {
  const validate = validator(def)
  if (validate(value)) return undefined
  const errors = validate.errors ?? []
  // The most useful error is the deepest one that is not a oneOf/anyOf summary; at one depth, an unknown field first:
  // a misspelt name (`replay` for `reply`) is why the object also lacks what it needs.
  const rank = (e: AjvError) => (e.keyword === 'additionalProperties' ? 0 : ['oneOf', 'anyOf', 'not', 'if'].includes(e.keyword) ? 2 : 1)
  const best = [...errors].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length || rank(a) - rank(b))[0]
  return { path: toPath(best.instancePath), expected: describe(best) }
}

/**
 * Frozen values known to be valid: the built-in demo, whose validity a test checks with {@link schemaProblem}, so that
 * `dockside serve --scenario demo` (`npm start`) never pays ~150 ms to load and compile ajv. Frozen, so never changed after.
 */
const trusted = new WeakSet<object>()
/** Deep-freezes `value` and marks it and every object in it as valid; returns it. */
export function frozenValid<T extends object>(value: T): T {
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object' || trusted.has(v)) return
    for (const child of Object.values(v)) walk(child)
    Object.freeze(v)
    trusted.add(v)
  }
  walk(value)
  return value
}
/** Whether `value` is one of the frozen values marked valid. */
export const isTrustedValid = (value: unknown) => value !== null && typeof value === 'object' && trusted.has(value)

/** Checks `value` against a definition of the schema; throws a FieldError naming the path, what was wrong and what is allowed. */
export const checkSchema: SchemaCheck = (def, value, subject) => {
  if (isTrustedValid(value)) return
  const problem = schemaProblem(def, value)
  if (problem) throw new FieldError(problem.path, problem.expected, subject)
}
