// A JSON scenario (a .json file, a POST /_dockside/scenario body) refuses a key given twice in one object, naming the
// key and where its second one starts. Found without the yaml library (an optional package since the light install):
// these pin the scanner's line and column, its reading of escapes, and what is not a repeat.
import { expect, it } from 'vitest'
import { parseScenario } from '../../../src/scenario/load'
import { firstRepeatedKey } from '../../../src/scenario/json-keys'

it('names the second key, by line and column, at any depth', () => {
  expect(firstRepeatedKey('{"a": 1, "b": {"c": [1, {"d": 1, "d": 2}]}}')).toEqual({ key: '"d"', line: 1, column: 34 })
  expect(firstRepeatedKey('{\n  "seed": 1,\n  "x": "a, \\"seed\\": 2",\n  "seed": 3\n}')).toEqual({ key: '"seed"', line: 4, column: 3 })
})

it('reads keys as JSON.parse does: an escape is the same key', () => {
  expect(firstRepeatedKey('{"a": 1, "\\u0061": 2}')).toEqual({ key: '"\\u0061"', line: 1, column: 10 })
})

it('a key in two objects, a value equal to a key, or strings in a list are no repeat', () => {
  expect(firstRepeatedKey('{"a": {"a": "a"}, "b": [{"a": 1}, {"a": 2}], "c": ["a", "a"]}')).toBeUndefined()
  expect(firstRepeatedKey('[{"a": 1}, {"a": 1}]')).toBeUndefined()
})

it('a .json scenario with a repeated key is refused with its place', async () => {
  await expect(parseScenario('{"containers": [],\n "containers": []}', 'twice.json')).rejects.toThrow(
    'twice.json: at line 2, column 2: expected valid JSON with each key once in an object: "containers" is given twice (JSON.parse would keep only the last)',
  )
})
