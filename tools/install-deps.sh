#!/bin/sh
# Installs the Debian packages named on the command line that are not installed yet.
# Used by `make deps` (and so by `make run` and `make test`). Needs root only when something is missing.
set -e
missing=""
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "krt: installing missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
    echo "krt: not root; run as root, or: sudo apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
