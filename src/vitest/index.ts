// The vitest entry: fixture and matchers. See docs/in-process.md.
export {}
