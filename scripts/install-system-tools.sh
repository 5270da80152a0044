#!/usr/bin/env bash
# Installs Debian packages the project uses, when we can:
#   bubblewrap - the sandbox's filesystem isolation (without it the sandbox runs with weaker isolation,
#                recorded in every result);
#   chromium   - only for the test that opens the HTML report in a real headless browser.
set -u
want=()
command -v bwrap >/dev/null 2>&1 || want+=(bubblewrap)
[ "${1:-}" = "--no-browser" ] || command -v chromium >/dev/null 2>&1 || want+=(chromium)
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${want[*]} from Debian's packages..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}") >/dev/null 2>&1 \
    || echo "warning: could not install ${want[*]}" >&2
else
  echo "note: not installed: ${want[*]} (sudo apt-get install ${want[*]})" >&2
fi
exit 0
