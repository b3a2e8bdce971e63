// What the browser build (tsup.config.ts) gives in place of the few Node built-ins and Node-only transports on the
// fake's lazy paths. The model, clock and protocol import none (tsconfig.core.json); these cover src/scenario and
// src/dockside.ts: scenario files, listen()/intercept(). (The schema's validators are ajv's standalone code in every
// build: scripts/schema-standalone.ts.)

const nodeOnly = (what: string) =>
  new Error(`dockside: ${what} needs Node; in a browser, answer the page's fetch and WebSocket with setupWorker(...docksideHandlers(fake)) from dockside/browser (see docs/msw.md).`)

/** `node:module`: nothing in the browser build require()s (ajv's validators are compiled in); a loud error if it does. */
export function createRequire(): (id: string) => unknown {
  return (id) => {
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

/**
 * src/ui/assets: the dashboard's files are on disk in the package, which a page cannot read (and a bundler would warn
 * on their `new URL(..., import.meta.url)`). Through MSW in a page, /_dockside/ui says where the dashboard is served;
 * its script and stylesheet are 404s that say so too.
 */
export async function readUiAsset(file: string): Promise<{ contentType: string; body: string } | undefined> {
  if (file !== 'index.html') return undefined
  return {
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>dockside dashboard</title></head>
<body><main><h1>dockside</h1><p>The dashboard is served by a real dockside server (<code>npx dockside serve</code>, or <code>fake.listen()</code> in Node), not through MSW in a page. The admin API answers here: <a href="/_dockside/state">/_dockside/state</a>.</p></main></body>
</html>
`,
  }
}
