#!/usr/bin/env bash
# Installs Debian packages the project uses, when we can:
#   bubblewrap - the sandbox's filesystem isolation (without it the sandbox runs with weaker isolation,
#                recorded in every result);
#   chromium, chromium-driver - only for the tests that open the HTML report and the annotation page in a real
#                headless browser (the annotation test drives it through selenium and chromedriver).
set -u
want=()
command -v bwrap >/dev/null 2>&1 || want+=(bubblewrap)
if [ "${1:-}" != "--no-browser" ]; then
  command -v chromium >/dev/null 2>&1 || want+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || want+=(chromium-driver)
fi
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${want[*]} from Debian's packages..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}") >/dev/null 2>&1 \
    || echo "warning: could not install ${want[*]}" >&2
else
  echo "note: not installed: ${want[*]} (sudo apt-get install ${want[*]})" >&2
fi
exit 0
