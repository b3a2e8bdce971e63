// The in-process hooks (nock + mock-socket) live here: see docs/in-process.md.
export {}
