#!/usr/bin/env bash
# Installs bubblewrap (the sandbox's filesystem isolation) from Debian's packages when we can.
# Without it the sandbox still runs, with weaker isolation that every result records.
set -u
if command -v bwrap >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing bubblewrap for the sandbox..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null 2>&1 \
    || echo "warning: could not install bubblewrap; the sandbox will use weaker isolation" >&2
else
  echo "note: bubblewrap is not installed (sudo apt-get install bubblewrap); weaker isolation will be used" >&2
fi
exit 0
