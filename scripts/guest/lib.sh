# shellcheck shell=bash
# Host-side helpers for scripts/guest-run: packages, kernel choice, image cache.
# Sourced, not executed. Every function prints "guest-run: <verb> <object>: <cause>" on failure.

GUEST_PACKAGES=(qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64)

die() {
  echo "guest-run: $*" >&2
  exit 125
}

note() {
  [[ ${GUEST_RUN_QUIET:-0} == 1 ]] || echo "guest-run: $*" >&2
}

# Installs the packages the guest needs, quietly, only when one is missing.
ensure_packages() {
  local missing=() p status
  for p in "${GUEST_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  note "installing ${missing[*]} (once, ~1 min)"
  local log
  log=$(mktemp /tmp/guest-run-apt.XXXXXX)
  local apt=(apt-get -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends install "${missing[@]}")
  if ! DEBIAN_FRONTEND=noninteractive "${apt[@]}" >"$log" 2>&1; then
    note "install failed, refreshing package lists and retrying"
    DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=300 update >>"$log" 2>&1 ||
      { tail -n 20 "$log" >&2; die "update package lists: apt-get update failed (log $log)"; }
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" >>"$log" 2>&1 ||
      { tail -n 20 "$log" >&2; die "install ${missing[*]}: apt-get failed (log $log)"; }
  fi
  rm -f "$log"
}

# Prints the newest installed Debian 6.1 kernel version that has modules, headers and a vmlinuz.
pick_kernel() {
  local d ver best=""
  for d in /lib/modules/6.1.0-*-amd64; do
    ver=${d##*/}
    [[ -e $d/build/Makefile && -d $d/kernel && -f /boot/vmlinuz-$ver ]] || continue
    best+="$ver"$'\n'
  done
  [[ -n $best ]] || die "find guest kernel: no /lib/modules/6.1.0-*-amd64 with modules, headers (build/) and /boot/vmlinuz"
  printf '%s' "$best" | sort -V | tail -n 1
}

# Key of everything the cached image is built from: kernel files, busybox, these scripts.
image_key() {
  local ver=$1 here=$2
  {
    echo "$ver"
    stat -c '%s %Y %n' "/boot/vmlinuz-$ver" "/lib/modules/$ver/modules.dep" /bin/busybox
    sha256sum "$here"/guest/* "$here"/guest-run
  } | sha256sum | cut -d' ' -f1
}

# Ensures CACHE holds vmlinux (if PVH-capable), initramfs.cpio.gz and boot (pvh|bzimage) for VER.
ensure_image() {
  local ver=$1 cache=$2 here=$3 key
  key=$(image_key "$ver" "$here")
  mkdir -p "$cache" || die "create cache dir $cache: mkdir failed"
  (
    flock 9 || die "lock cache dir $cache: flock failed"
    [[ -f $cache/key && $(<"$cache/key") == "$key" ]] && exit 0
    note "building guest image for $ver in $cache"
    "$here/guest/build-image" "$ver" "$cache" || die "build guest image for $ver: build-image failed"
    echo "$key" >"$cache/key"
  ) 9>"$cache/.lock" || exit $?
}
