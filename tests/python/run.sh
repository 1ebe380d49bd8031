#!/bin/sh
# The Python package's tests: a virtual environment on Debian's python3
# (with its numpy, pandas and pytest: --system-site-packages) under the
# build directory, the package installed from ./python as a user would
# (offline: --no-build-isolation --no-index), and pytest on python/tests.
#   tests/python/run.sh [BUILD_DIR]     (default: build; its tracemux CLI
#                                        gives the reference outputs)
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
py=/usr/bin/python3   # Debian's, whatever python3 comes first on PATH
venv=$build/python-venv
[ -x "$venv/bin/python" ] || "$py" -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-build-isolation --no-index --force-reinstall --no-deps ./python
cd python/tests   # not python/: `import tracemux` must find the installed package
TRACEMUX_CLI=${TRACEMUX_CLI:-$OLDPWD/$build/tracemux} \
	"$OLDPWD/$venv/bin/python" -m pytest -q -p no:cacheprovider .
