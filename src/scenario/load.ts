import { readFile } from 'node:fs/promises'
import { validateRule, type FaultRule } from '../faults/plan'
import { ScenarioError } from '../service/errors'
import { toMs } from '../time/duration'
import schema from '../../docs/scenario.schema.json'
import { demoScenario } from './demo'
import type { Scenario } from './scenario'

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

let validator: ((data: unknown) => boolean) & { errors?: AjvError[] | null } | undefined

async function getValidator() {
  if (!validator) {
    // Loaded lazily: `dockside serve` without a scenario file does not pay for it.
    const { default: Ajv } = await import('ajv')
    const ajv = new (Ajv as unknown as new (o: object) => { compile(s: object): typeof validator })({ allErrors: true, strict: false })
    validator = ajv.compile(schema)
  }
  return validator!
}

const DURATION_FIELD = /\/(at|every|from|until|maxConnectionAge)$/
const DURATION = 'expected a duration: milliseconds or a string like "250ms", "5s", "2m", "1h30m"'
/** What an entry of a list needs when it matches none (or several) of its `oneOf` shapes. */
const ONE_OF: [RegExp, string][] = [
  [/^\/timeline\/\d+$/, 'expected exactly one action: "start", "stop", "create" (with "image"), "remove", "restart", "close", "drop" or "faults"'],
  [/^\/faults\/\d+$/, 'expected exactly one action: "reply", "refuse", "error", "close", "drop", "reset", "truncate", "stall", "dribble" or "latency"'],
]

function describe(e: AjvError, all: AjvError[]): string {
  if (DURATION_FIELD.test(e.instancePath) && ['type', 'pattern', 'oneOf', 'minimum'].includes(e.keyword)) return DURATION
  // A `required` inside a oneOf branch names one branch only: say what the oneOf wants instead.
  const oneOf = ONE_OF.find(([re]) => re.test(e.instancePath))
  if (oneOf && (e.keyword === 'oneOf' || (e.keyword === 'required' && all.some((x) => x.keyword === 'oneOf' && x.instancePath === e.instancePath)))) {
    return oneOf[1]
  }
  switch (e.keyword) {
    case 'additionalProperties':
      return `unknown field "${e.params.additionalProperty}"; expected one of the fields in docs/scenario.schema.json`
    case 'required':
      return `missing required field "${e.params.missingProperty}"`
    case 'enum':
      return `expected one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'pattern':
      return `expected a string matching ${e.params.pattern}`
    default:
      return `expected ${e.message?.replace(/^must (be )?/, '') ?? 'a valid value'}`
  }
}

/** Validates a parsed scenario; throws ScenarioError naming the file, the path inside it and what was expected. */
export async function validateScenario(data: unknown, file = '(scenario)'): Promise<Scenario> {
  const validate = await getValidator()
  if (validate(data)) return checkMeaning(data as Scenario, file)
  const errors = validate.errors ?? []
  // The most useful error is the deepest one that is not a oneOf/anyOf summary.
  const ranked = [...errors].sort((a, b) => {
    const summary = (e: AjvError) => (['oneOf', 'anyOf', 'not', 'if'].includes(e.keyword) ? 1 : 0)
    return summary(a) - summary(b) || b.instancePath.split('/').length - a.instancePath.split('/').length
  })
  const best = ranked[0]
  const path = best.instancePath.replace(/^\//, '').split('/').filter(Boolean).map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '')
  throw new ScenarioError(file, path, describe(best, errors))
}

/** What the schema cannot say: fault rules the fault plan refuses, a repeat of 0. */
function checkMeaning(scenario: Scenario, file: string): Scenario {
  scenario.faults?.forEach((rule, i) => {
    try {
      validateRule({ ...rule } as FaultRule)
    } catch (error) {
      throw new ScenarioError(file, `faults[${i}]`, (error as Error).message)
    }
  })
  scenario.timeline?.forEach((step, i) => {
    if (step.every !== undefined && toMs(step.every) <= 0) throw new ScenarioError(file, `timeline[${i}].every`, 'expected a duration above 0, like "6s"')
  })
  return scenario
}

/** Parses YAML or JSON text into a validated scenario. */
export async function parseScenario(text: string, file = '(scenario)'): Promise<Scenario> {
  let data: unknown
  if (/\.json$/i.test(file)) {
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new ScenarioError(file, '', `expected valid JSON (${(error as Error).message})`)
    }
  } else {
    const { parseDocument } = await import('yaml')
    const doc = parseDocument(text, { prettyErrors: true })
    if (doc.errors.length) {
      const e = doc.errors[0]
      const where = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : ''
      throw new ScenarioError(file, where, `expected valid YAML (${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')})`)
    }
    data = doc.toJS()
  }
  if (data === null || data === undefined) data = {}
  return validateScenario(data, file)
}

/** Loads a scenario file (YAML or JSON), or the built-in `demo`. */
export async function loadScenario(file: string): Promise<Scenario> {
  if (file === 'demo') return demoScenario
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new ScenarioError(file, '', `a readable scenario file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); or "demo" for the built-in demo`)
  }
  return parseScenario(text, file)
}
