#!/usr/bin/env bash
# Installs the Debian packages jitprof needs to build, test and demo. As root it runs apt-get
# (refreshing the package lists first, since a fresh machine's are stale); otherwise it prints
# the exact command to run and fails.
set -euo pipefail
pkgs=(
	build-essential clang llvm libclang-rt-14-dev pkg-config
	libelf-dev libdw-dev elfutils libssl-dev libcapstone-dev libdebuginfod-dev debuginfod
	libzstd-dev zstd libcriterion-dev libarchive-dev libiberty-dev
	binutils gdb linux-perf strace
	openjdk-17-jdk-headless nodejs npm
	python3 libxml2-utils libxml2-dev python3-jsonschema help2man
	chromium golang-go libprotobuf-c-dev protobuf-c-compiler zlib1g-dev
	libc6-dbg libdeflate0
)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		# nodejs (and its npm) may come from another repository; any node and npm will do.
		[ "$p" = nodejs ] && command -v node >/dev/null && continue
		[ "$p" = npm ] && command -v npm >/dev/null && continue
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: missing packages: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The browser and speedscope checks' npm packages, pinned by tests/browser/package-lock.json
# (npm's cache serves them offline once fetched).
cd "$(dirname "$0")/../tests/browser"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]
then
	npm ci --prefer-offline --no-audit --no-fund --loglevel=error
fi
