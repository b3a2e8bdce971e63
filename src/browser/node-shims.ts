// What the browser build (tsup.config.ts) gives in place of the few Node built-ins and Node-only transports on the
// fake's lazy paths. The model, clock and protocol import none (tsconfig.core.json); these cover src/scenario and
// src/dockside.ts: ajv loaded synchronously on first use (createRequire in Node), scenario files, listen()/intercept().
import Ajv from 'ajv'

const nodeOnly = (what: string) =>
  new Error(`dockside: ${what} needs Node; in a browser, answer the page's fetch and WebSocket with setupWorker(...docksideHandlers(fake)) from dockside/browser (see docs/msw.md).`)

/** `node:module`: src/scenario/schema.ts loads ajv with `createRequire(import.meta.url)('ajv')`. */
export function createRequire(): (id: string) => unknown {
  return (id) => {
    if (id === 'ajv') return { default: Ajv }
    throw nodeOnly(`require('${id}')`)
  }
}

/** `node:fs/promises`: loadScenario(path) reads a file. */
export async function readFile(): Promise<never> {
  throw nodeOnly('loadScenario(path) reads a file, which')
}

/** src/transports/server/serve: fake.listen(). */
export async function serve(): Promise<never> {
  throw nodeOnly('fake.listen() opens a port, which')
}

/** src/transports/intercept: fake.intercept(). */
export async function intercept(): Promise<never> {
  throw nodeOnly('fake.intercept() hooks Node\'s fetch and http, which')
}
