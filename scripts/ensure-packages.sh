#!/usr/bin/env bash
# Installs the Debian packages the tests need, only those missing, with one `apt-get update`.
#   scripts/ensure-packages.sh PATH=PACKAGE...   e.g. /usr/bin/chromium=chromium
# A PATH that exists means its package is there. Progress goes to stderr; stdout stays clean.
set -euo pipefail
missing=()
for pair in "$@"; do
  path="${pair%%=*}"
  package="${pair#*=}"
  [[ -e "$path" ]] || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0
echo "ensure-packages: installing ${missing[*]} (apt)" >&2
sudo=""
[[ "$(id -u)" == 0 ]] || sudo="sudo"
{ $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } >&2 ||
  { echo "ensure-packages: apt-get could not install ${missing[*]}" >&2; exit 1; }
