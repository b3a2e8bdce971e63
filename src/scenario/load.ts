import { FieldError, ScenarioError } from '../service/errors'
import { createService } from '../core/service'
import { checkScenario } from './apply'
import { checkSchema, isTrustedValid, schemaProblem } from './schema'
import { demoScenario } from './demo'
import type { Scenario } from './scenario'
import { firstRepeatedKey } from './json-keys'
import { loadOptional } from '../runtime/optional-peer'

/**
 * Validates a scenario: field names and types against docs/scenario.schema.json, then everything applying
 * it to a fresh fake would refuse (duplicate names, fault rules, ...). The promise rejects (it does not throw) with a
 * ScenarioError naming the file, the path inside it and what was wrong: `await expect(validateScenario(x)).rejects`.
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

/** The yaml library's parse options for scenario files: YAML 1.2 plus `<<` merge keys (YAML 1.1, common in compose files). */
const YAML_OPTIONS = { prettyErrors: true, merge: true, uniqueKeys: true } as const
/** The yaml library's default cap on alias expansion (toJS's maxAliasCount), named so the error can say it. */
const MAX_ALIAS_COUNT = 100

/** The first error of a parsed YAML document as a ScenarioError naming its line and column. */
function yamlProblem(file: string, e: { code?: string; message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }, what: string): ScenarioError {
  const where = e.linePos?.[0] ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : ''
  // The library's own wording tells its caller to "use YAML.parseAllDocuments()", which a scenario's author cannot.
  if (e.code === 'MULTIPLE_DOCS') {
    return new ScenarioError(file, where, 'expected one YAML document (a scenario file holds one scenario): a second one starts here, after a "---" or "..." line; remove the separator, or split the file')
  }
  return new ScenarioError(file, where, `expected valid ${what} (${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')})`)
}

/**
 * Refuses JSON text (valid JSON) that gives a key twice in one object, naming the key and where: JSON.parse keeps the
 * last silently. For scenario files and `POST /_dockside/scenario` bodies alike.
 */
export async function checkKeysOnce(text: string, file: string): Promise<void> {
  // Scanned here, not by the yaml library: JSON needs no optional package (yaml is one: runtime/optional-peer.ts).
  const twice = firstRepeatedKey(text)
  if (!twice) return
  throw new ScenarioError(file, `line ${twice.line}, column ${twice.column}`, `expected valid JSON with each key once in an object: ${twice.key} is given twice (JSON.parse would keep only the last)`)
}

/**
 * Parses YAML or JSON text into a validated scenario. A leading byte order mark is dropped, and an empty file (or one
 * of only whitespace and, in YAML, comments) is an empty scenario, in either format. JSON refuses a key given twice in
 * one object, as YAML does (JSON.parse alone kept the last).
 */
export async function parseScenario(text: string, file = '(scenario)'): Promise<Scenario> {
  let data: unknown
  // Editors on Windows save UTF-8 with a byte order mark; JSON.parse refused it as an "Unexpected token".
  text = text.replace(/^\uFEFF/, '')
  if (/\.json$/i.test(file)) {
    if (text.trim() !== '') {
      try {
        data = JSON.parse(text)
      } catch (error) {
        throw new ScenarioError(file, '', `expected valid JSON (${(error as Error).message})`)
      }
      await checkKeysOnce(text, file)
    }
  } else {
    const { isAlias, isCollection, LineCounter, parseDocument, visit } = await loadOptional('yaml', `Reading the YAML scenario ${file} (JSON needs no extra package)`, () => import('yaml'))
    const lines = new LineCounter()
    const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter: lines })
    if (doc.errors.length) throw yamlProblem(file, doc.errors[0], 'YAML')
    // A list or mapping as a key (`? [a, b] : c`) became the string "[ a, b ]", and the yaml library said so only in a
    // process warning on stderr ("(node:PID) Warning: ... Set mapAsMap: true"), naming no line: no scenario field has one.
    let complexKey: number | undefined
    visit(doc, {
      Pair(_, pair) {
        const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key
        if (!isCollection(key)) return undefined
        complexKey = (pair.key as { range?: [number, ...number[]] }).range?.[0] ?? 0
        return visit.BREAK
      },
    })
    if (complexKey !== undefined) {
      const { line, col } = lines.linePos(complexKey)
      throw new ScenarioError(file, `line ${line}, column ${col}`, 'expected a key that is a name (a string or number): this key is a list or mapping ("? [a, b] : ..."), which no scenario field takes')
    }
    // Inside the try: toJS() throws for aliases that expand too far (an "alias bomb"), which is a bad file too.
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
    } catch (error) {
      const why = (error as Error).message
      throw new ScenarioError(
        file,
        '',
        /alias count/i.test(why)
          ? `expected YAML whose aliases (*name) expand within the yaml library's maxAliasCount (${MAX_ALIAS_COUNT}): these expand further, as an "alias bomb" does (${why})`
          : `expected valid YAML (${why})`,
      )
    }
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
