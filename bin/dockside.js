#!/usr/bin/env node
// Node's on-disk compile cache (22.1+; a no-op where it is missing): the second and later starts of `dockside serve`
// skip compiling dockside's modules and faker's (decision 0017). Enabled before the CLI is imported, hence the dynamic
// import.
import module from 'node:module'

module.enableCompileCache?.()
await import('../dist/cli.js')
