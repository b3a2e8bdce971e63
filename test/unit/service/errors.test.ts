// The error classes (src/service/errors.ts): names, codes and the messages their paths make (docs/errors.md).
import { expect, it } from 'vitest'
import { ConflictError, DocksideError, InvalidFilterError, InvalidInputError, NotFoundError, ScenarioError } from '../../../src/index'
import { FieldError, joinPath } from '../../../src/service/errors'

it('every class: its name, code and place in the hierarchy', () => {
  const rows = [new NotFoundError('m'), new NotFoundError('m', 'DOCKSIDE_X'), new InvalidInputError('m'), new InvalidFilterError('m'), new ConflictError('m'), new ScenarioError('f.yaml', '', 'bad'), new FieldError('a', 'must be x')]
  expect(rows.map((e) => [e.name, e.code, e instanceof DocksideError, e instanceof InvalidInputError])).toEqual([
    ['NotFoundError', 'DOCKSIDE_NOT_FOUND', true, false],
    ['NotFoundError', 'DOCKSIDE_X', true, false],
    ['InvalidInputError', 'DOCKSIDE_INVALID_INPUT', true, true],
    ['InvalidFilterError', 'DOCKSIDE_INVALID_FILTER', true, true],
    ['ConflictError', 'DOCKSIDE_CONFLICT', true, false],
    ['ScenarioError', 'DOCKSIDE_INVALID_SCENARIO', true, false],
    ['InvalidInputError', 'DOCKSIDE_INVALID_INPUT', true, true],
  ])
  expect(new DocksideError('DOCKSIDE_Y', 'why').name).toBe('DocksideError')
})

it('paths: joined with dots, indexes glued, the subject when the path is empty or starts with an index', () => {
  expect([joinPath('', 'a'), joinPath('rules', ''), joinPath('rules', '[2].match'), joinPath('rules', 'match'), joinPath('', '')]).toEqual(['a', 'rules', 'rules[2].match', 'rules.match', ''])
  expect(new FieldError('match.route', 'must be a string', 'fault rule').message).toBe('match.route: must be a string')
  expect(new FieldError('', 'must be an object', 'fault rule').message).toBe('fault rule: must be an object')
  expect(new FieldError('[1].window', 'must be above 0', 'rate limit').message).toBe('rate limit[1].window: must be above 0')
  expect(new FieldError('x', 'y').message).toBe('x: y')
  expect(new FieldError('', 'y').message).toBe('input: y')
  const up = new FieldError('[2].match', 'must be an object', 'fault rule').at('rules')
  expect([up.path, up.expected, up.subject, up.message]).toEqual(['rules[2].match', 'must be an object', 'fault rule', 'rules[2].match: must be an object'])
  expect(new ScenarioError('s.yaml', '', 'must be a mapping').message).toBe('s.yaml: at (root): must be a mapping')
  expect(new ScenarioError('s.yaml', 'faults[1]', 'bad').message).toBe('s.yaml: at faults[1]: bad')
})
