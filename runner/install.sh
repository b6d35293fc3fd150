#!/usr/bin/env bash
# The runner-side action's install (runner/action.yml, docs/toolchain.md): the harness in a private virtual
# environment, never in the project's own Python, so the project's installs and the harness's pins never meet.
#
#   install.sh key     SOURCE VENV   writes path=, key= and cacheable= to $GITHUB_OUTPUT (actions/cache's inputs)
#   install.sh install SOURCE VENV   makes VENV unless it already holds what KEY names (restored from the cache)
#
# SOURCE is the action's checkout (the repository at the ref the workflow pinned). The environment holds exactly
# requirements.lock (--require-hashes, wheels only) and the package's wheel, built from SOURCE with the
# hash-locked build backend of requirements-build.lock (no build isolation: nothing unpinned is fetched).
# The key names everything the environment is made of: the interpreter (path and version), both locks,
# pyproject.toml, action.yml, this recipe (runner/action.yml, runner/install.sh) and the package's files. The interpreter is the runner's own /usr/bin/python3 when
# it is 3.11 or newer (not one a setup-python step put first on PATH), else the newest python3.1x on PATH.
set -euo pipefail

mode=${1:?install.sh key|install SOURCE VENV}
source_dir=$(cd "${2:?SOURCE}" && pwd)
venv=$(realpath -m "${3:?VENV}")
stamp="$venv/.aw-harness-key"
# Out of the workspace before any Python starts, and every interpreter isolated (-I): `python -m pip` puts the
# working directory first on sys.path and honours PYTHONPATH, so a pip.py, venv.py or sitecustomize.py that a
# checked-out repository (a fork's pull request) holds would run in their place and its venv be cached.
cd /

say() { printf 'aw-harness install: %s\n' "$*"; }
fail() { printf '::error title=aw-harness install::%s\n' "$*"; exit 2; }

usable() { "$1" -I -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
pick_python() {
  local candidate
  for candidate in /usr/bin/python3 python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && usable "$candidate"; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

python=$(pick_python) \
  || fail "no Python 3.11 or newer on this runner: add actions/setup-python (python-version: '3.12') before this step"

key() {
  {
    "$python" -I -c 'import sys; print(sys.version, sys.executable)'
    cd "$source_dir"
    sha256sum requirements.lock requirements-build.lock pyproject.toml action.yml runner/action.yml runner/install.sh
    find aw_action -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-32
}

case "$mode" in
  key)
    k="aw-harness-venv-$(uname -s)-$(uname -m)-$(key)"
    {
      echo "path=$venv"
      echo "key=$k"
      echo "cacheable=true"
    } >>"${GITHUB_OUTPUT:-/dev/stdout}"
    ;;
  install)
    k="aw-harness-venv-$(uname -s)-$(uname -m)-$(key)"
    if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$k" ]; then
      say "the environment for $k is in place (restored from the cache)"
      exit 0
    fi
    started=$(date +%s.%N)
    rm -rf "$venv"
    "$python" -I -m venv "$venv" || fail "$python -m venv $venv failed (on Debian and Ubuntu: apt-get install python3-venv)"
    pip=("$venv/bin/python" -I -m pip --disable-pip-version-check --no-input --quiet)
    "${pip[@]}" install --require-hashes --only-binary=:all: -r "$source_dir/requirements.lock"
    build=$(mktemp -d)
    trap 'rm -rf "$build"' EXIT
    "${pip[@]}" install --require-hashes --only-binary=:all: --target "$build/backend" \
      -r "$source_dir/requirements-build.lock"
    PYTHONPATH="$build/backend" "${pip[@]}" wheel --no-deps --no-build-isolation --no-index \
      --wheel-dir "$build/dist" "$source_dir"
    "${pip[@]}" install --no-deps --no-index "$build"/dist/aw_harness-*.whl
    echo "$k" >"$stamp"
    say "installed into $venv with $python in $("$python" -I -c "import time; print(round(time.time() - $started, 1))") s"
    ;;
  *) fail "unknown mode '$mode' (key or install)" ;;
esac
