#!/usr/bin/env bash
# Refresh the vendored htmx of claimtrace serve from the npm registry (version pinned below), with its licence.
set -euo pipefail
VERSION="${1:-2.0.11}"
DEST="$(cd "$(dirname "$0")/.." && pwd)/src/claimtrace/serve/static/vendor/htmx"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack "htmx.org@${VERSION}" >/dev/null && tar xzf "htmx.org-${VERSION}.tgz")
mkdir -p "$DEST"
cp "$TMP/package/dist/htmx.min.js" "$TMP/package/LICENSE" "$DEST/"
SHA="$(sha256sum "$DEST/htmx.min.js" | cut -d' ' -f1)"
printf 'htmx.org %s from the npm registry (npm pack htmx.org@%s): dist/htmx.min.js and LICENSE (0BSD).\nsha256 of htmx.min.js: %s\nRefresh: scripts/vendor_htmx.sh\n' \
  "$VERSION" "$VERSION" "$SHA" > "$DEST/SOURCE.txt"
echo "htmx ${VERSION} -> ${DEST} (sha256 ${SHA})"
