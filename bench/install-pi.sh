#!/usr/bin/env bash
# Installs Pi, the peer the bench compares against, at the version pinned in bench/pi/package.json, exactly as
# bench/pi/package-lock.json (integrity hashes) says: into bench/pi/node_modules, which is not committed.
set -euo pipefail
cd "$(dirname "$0")/pi"
npm ci --no-audit --no-fund --loglevel=error
echo "Pi $(node -p 'require("./node_modules/@mariozechner/pi-coding-agent/package.json").version') installed in $PWD/node_modules"
