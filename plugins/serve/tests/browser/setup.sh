#!/usr/bin/env bash
# The browser test's tools (plugins/serve/tests/test_browser.py), run by `make test-setup`:
#   1. zarrita.js from the npm registry, bundled into one ES module with esbuild, into $1
#      (default .browser/): what the test page imports;
#   2. a Chromium when none is on PATH: the system's `chromium` package through apt-get, where
#      this runs as root on a Debian or Ubuntu system. Anywhere else it says so and the
#      browser test skips, naming what is missing (install chromium, or set
#      ZARRFORGE_BROWSER to a Chromium or Chrome binary).
set -uo pipefail
dir="${1:-.browser}"
mkdir -p "$dir"
if [ ! -f "$dir/zarrita.bundle.js" ]; then
    for attempt in 1 2; do  # npm's registry fails a download now and then
        npm install --prefix "$dir" --no-audit --no-fund --silent "zarrita@0.7.5" "esbuild@0.28.2" && break
        sleep 10
    done
    echo 'export * from "zarrita";' > "$dir/entry.js"
    "$dir/node_modules/.bin/esbuild" "$dir/entry.js" --bundle --format=esm --log-level=warning \
        --outfile="$dir/zarrita.bundle.js" || exit 1
fi
if [ -n "${ZARRFORGE_BROWSER:-}" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null \
    || command -v google-chrome >/dev/null; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
        || (apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends chromium >/dev/null 2>&1)) \
        && exit 0
fi
echo "no Chromium could be installed here: plugins/serve/tests/test_browser.py will skip (install chromium, or set ZARRFORGE_BROWSER)"
