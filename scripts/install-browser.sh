#!/bin/sh
# Install Debian's chromium for the dashboard's browser test (tests/server/test_server_browser.py).
# Playwright drives /usr/bin/chromium; never run `playwright install` (no browser downloads).
set -eu
if [ -x /usr/bin/chromium ]; then
    /usr/bin/chromium --version
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
/usr/bin/chromium --version
