import { FieldError, ScenarioError } from '../service/errors'
import { createService } from '../service/service'
import { checkScenario } from './apply'
import { checkSchema, isTrustedValid, schemaProblem } from './schema'
import { demoScenario } from './demo'
import type { Scenario } from './scenario'

/**
 * Validates a scenario: field names and types against docs/scenario.schema.json, then everything applying
 * it to a fresh fake would refuse (duplicate names, fault rules, ...). Throws ScenarioError naming the file,
 * the path inside it and what was wrong.
 */
export async function validateScenario(data: unknown, file = '(scenario)'): Promise<Scenario> {
  return validateScenarioSync(data, file)
}

/** {@link validateScenario}, synchronously (createDockside checks its `scenario` option with it). */
export function validateScenarioSync(data: unknown, file = '(scenario)'): Scenario {
  const problem = isTrustedValid(data) ? undefined : schemaProblem('scenario', data)
  if (problem) throw new ScenarioError(file, problem.path, problem.expected)
  try {
    checkScenario(createService({}, undefined, checkSchema), data as Scenario)
  } catch (error) {
    if (error instanceof FieldError) throw new ScenarioError(file, error.path, error.expected)
    throw error
  }
  return data as Scenario
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
    // Imported here, not with the module: node:fs/promises is ~2 ms of `dockside serve`'s start-up without a file.
    const { readFile } = await import('node:fs/promises')
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new ScenarioError(file, '', `a readable scenario file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); or "demo" for the built-in demo`)
  }
  return parseScenario(text, file)
}
