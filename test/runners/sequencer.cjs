// Runs test files in name order, so a two-file isolation check always runs its files in the order it means.
const Sequencer = require('@jest/test-sequencer').default

module.exports = class ByName extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path))
  }
}
