# Sourced by scripts/test.sh and .ci/run: puts a Node >= 22.3 first on PATH.
# vitest 5, tsup 9 and nock 15 need Node >= 22, and dockside itself 22.3 (process.getBuiltinModule); where the
# machine's Node is older, the npm registry's `node` package (a Node 24 binary) is installed once into .tmp/node.
_dockside_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_dockside_new_enough=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 22 || (a === 22 && b >= 3) ? 1 : 0' 2>/dev/null || echo 0)
if [ "$_dockside_new_enough" != 1 ]; then
  _dockside_node="$_dockside_root/.tmp/node"
  if [ ! -x "$_dockside_node/node_modules/node/bin/node" ]; then
    echo "dockside: Node $(node --version 2>/dev/null || echo none) is older than 22.3; installing node@24 into .tmp/node" >&2
    mkdir -p "$_dockside_node"
    (cd "$_dockside_node" && echo '{"name":"dockside-node","private":true}' > package.json \
      && npm install --no-save --no-package-lock --no-audit --no-fund node@24 >/dev/null)
  fi
  export PATH="$_dockside_node/node_modules/node/bin:$PATH"
fi
