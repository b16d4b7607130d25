#!/usr/bin/env bash
# Packs searchdesk as an MCP bundle (.mcpb): the built server, its production dependencies,
# manifest.json and its icon (assets/icon.png), staged outside the tree so dev dependencies never ship.
#   npm run pack:mcpb            # -> searchdesk-<version>.mcpb in the repository root
set -euo pipefail
cd "$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")"
repo=$(pwd)
version=$(node -p "require('./package.json').version")
out="$repo/searchdesk-$version.mcpb"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

node scripts/config-docs.mjs --check  # user_config must match the settings schema
npm run build --silent
cp -R dist assets package.json package-lock.json manifest.json README.md "$stage/"
(cd "$stage" && npm ci --omit=dev --no-audit --no-fund --ignore-scripts >&2)
node "$repo/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" validate "$stage/manifest.json" >&2
node "$repo/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" pack "$stage" "$out" >&2
echo "$out"
