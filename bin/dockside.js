#!/usr/bin/env node
// Node's on-disk compile cache (22.1+; a no-op where it is missing): the second and later starts of `dockside serve`
// skip compiling dockside's modules and faker's (decision 0017). Enabled before the CLI is imported, hence the dynamic
// import.
import module from 'node:module'

// The CLI runs on Node 20.16+ and 22.3+ (the server's modules load built-ins with process.getBuiltinModule, which older
// releases lack): say so, rather than fail later with "process.getBuiltinModule is not a function".
if (typeof process.getBuiltinModule !== 'function') {
  console.error(`dockside needs Node 20.16 or newer on Node 20, or 22.3 or newer (process.getBuiltinModule); this is Node ${process.versions.node}.`)
  process.exit(1)
}

module.enableCompileCache?.()
await import('../dist/cli.js')
