import { DocksideError } from '../service/errors'

// Packages only some users need are optional peer dependencies (package.json peerDependenciesMeta), loaded where they
// are used: an install of dockside does not carry them (docs/getting-started.md, "Optional packages"). When one is
// missing, the feature that needs it says which package and how to install it.

/** The optional packages, with the range package.json's peerDependencies gives. */
export const OPTIONAL_PACKAGES = { yaml: '^2.9.1', selfsigned: '^5.5.0' } as const

/** A feature needs an optional package that is not installed; `packageName` names it. */
export class MissingPackageError extends DocksideError {
  override name = 'MissingPackageError'
  constructor(
    readonly packageName: keyof typeof OPTIONAL_PACKAGES,
    feature: string,
  ) {
    super(
      'DOCKSIDE_MISSING_PACKAGE',
      `${feature} needs the package "${packageName}", an optional peer dependency of dockside that this project does not have. ` +
        `Install it beside dockside: npm install --save-dev ${packageName}@"${OPTIONAL_PACKAGES[packageName]}" (see "Optional packages" in dockside's docs/getting-started.md).`,
    )
  }
}

/** Whether `error` says that `name` itself (not a module it imports) could not be found. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  return new RegExp(`['"]${name}['"]`).test(message ?? '')
}

/**
 * Runs `load` (an `import()` of the package, written at the call so bundlers keep it external) and turns "cannot find
 * the package" into a {@link MissingPackageError} naming `feature`.
 */
export async function loadOptional<T>(name: keyof typeof OPTIONAL_PACKAGES, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (isMissing(error, name)) throw new MissingPackageError(name, feature)
    throw error
  }
}
