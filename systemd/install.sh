#!/usr/bin/env bash
# Installs the appliance as a service on Raspberry Pi OS Bookworm (Debian 12), Pi 4 or Pi 5.
# Run as root from the repository:
#   sudo systemd/install.sh [--house NAME] [--dry-run]
#       --house NAME   the house whose rules the table deals by (a file of config/houses/); without it,
#                      the house already set is kept (a first install: general)
#       --dry-run      print every step, change nothing (root not needed)
# Then set the hardware in /etc/paigow-appliance/devices.toml and: sudo systemctl enable --now paigow-appliance
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/opt/paigow-appliance
conf=/etc/paigow-appliance
venv=$prefix/venv
house=  # --house, else the one in table.env, else general
dry=
model_file=${PAIGOW_MODEL_FILE:-/proc/device-tree/model}  # the Pi's model (a file in tests)
while [ $# -gt 0 ]; do
  case "$1" in
    --house) house=${2:?--house needs a name}; shift 2 ;;
    --dry-run) dry=1; shift ;;
    *) echo "install.sh: unknown option $1 (expected --house NAME, --dry-run)" >&2; exit 2 ;;
  esac
done
if [ -z "$dry" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo systemd/install.sh), or with --dry-run to see the steps" >&2
  exit 2
fi
if [ -n "$house" ] && [ ! -e "config/houses/$house.toml" ]; then
  echo "install.sh: --house $house: no config/houses/$house.toml (houses: $(cd config/houses && ls -- *.toml | sed 's/\.toml$//' | paste -sd ' '))" >&2
  exit 2
fi

# Every step that changes the machine goes through run: printed, and carried out unless --dry-run.
run() {
  echo "+ $*"
  [ -n "$dry" ] || "$@"
}
model=$(tr -d '\0' 2>/dev/null <"$model_file" || true)
pi=
case "$model" in *"Raspberry Pi"*) pi=1 ;; esac
echo "# machine: ${model:-not a Raspberry Pi}"

# 1. System packages: the index first, then Python's venv and Picamera2 (the OS's, with libcamera).
run apt-get update
packages=(python3-venv python3-pip)
if [ -n "$pi" ]; then packages+=(python3-picamera2 chromium-browser); fi
run env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"

# 2. The service user.
getent group gpio >/dev/null || run groupadd --system gpio
id paigow >/dev/null 2>&1 || run useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin \
  --groups video,dialout,gpio paigow

# 3. The virtual environment. It sees the OS's packages (Picamera2 and libcamera come only from apt)
# but keeps its own numpy 2 and OpenCV (the set the reader is tested and measured with). Picamera2's one
# numpy-compiled module, simplejpeg, gets its own numpy-2 build in the venv: the OS's build, compiled
# against the OS's numpy 1.24, would fail with "numpy.dtype size changed" under numpy 2.
run python3 -m venv --system-site-packages "$venv"
run "$venv/bin/pip" install --upgrade pip
run "$venv/bin/pip" install .
# GPIO: RPi.GPIO on a Pi 4, rpi-lgpio (same API) on a Pi 5; the two cannot be installed together.
case "$model" in
  *"Raspberry Pi 5"*) run "$venv/bin/pip" uninstall -y RPi.GPIO || true
                      run "$venv/bin/pip" install rpi-lgpio ;;
  *"Raspberry Pi"*) run "$venv/bin/pip" install RPi.GPIO ;;
esac
camera_stack=cv2
if [ -n "$pi" ]; then
  run "$venv/bin/pip" install --ignore-installed --no-deps "simplejpeg>=1.8"
  camera_stack="cv2, picamera2"
fi
# Checked here, not at the table: the reader (and on a Pi the camera) must import under the venv's numpy.
run "$venv/bin/python" -c "import numpy, $camera_stack; print('numpy', numpy.__version__, 'OpenCV', cv2.__version__, 'from', numpy.__file__)"
run install -m 0644 README.md "$prefix/README.md"
# On the technician's PATH: every step of the README uses `appliance`.
run ln -sfn "$venv/bin/appliance" /usr/local/bin/appliance

# 4. The configuration: 2750 root:paigow, so that what root adds later (the deck, supervisors) is the
# service's group's to read and no one else's.
run install -d -m 2750 -o root -g paigow "$conf" "$conf/houses"
# What the technician changed is never overwritten (it is named, to compare with this release's); a file
# still as the last install left it takes this release's, so that a corrected house rule reaches the table.
shipped=$prefix/shipped-config.sha256  # what each file was when installed
as_installed() { awk -v f="$1" '$2 == f {print $1}' "$shipped" 2>/dev/null || true; }
for f in config/devices.toml config/layout.toml config/houses/*; do
  to=$conf/${f#config/}
  if [ ! -e "$to" ]; then
    run install -m 0640 -o root -g paigow "$f" "$to"
  elif cmp -s "$f" "$to"; then
    :
  elif [ "$(sha256sum <"$to" | cut -d' ' -f1)" = "$(as_installed "${f#config/}")" ]; then
    run install -m 0640 -o root -g paigow "$f" "$to"
  else
    echo "# kept $to: changed here, and this release's differs (compare: diff $to $PWD/$f)"
  fi
done
echo "+ record in $shipped what this release's configuration files are"
[ -n "$dry" ] || (cd config && sha256sum devices.toml layout.toml houses/*) >"$shipped"
# The house the table deals by (the service's --house): --house sets it, else the one already set is kept.
old_house=$(sed -n 's/^HOUSE=//p' "$conf/table.env" 2>/dev/null || true)
if [ -z "$house" ] && [ -n "$old_house" ]; then
  echo "# house: $old_house (kept from $conf/table.env; --house NAME changes it)"
elif [ "${house:=general}" != "$old_house" ]; then
  echo "+ write $conf/table.env: HOUSE=$house${old_house:+ (was $old_house)}"
  [ -n "$dry" ] || printf '# The house whose rules this table deals by (a file stem of houses/).\nHOUSE=%s\n' "$house" \
    | install -m 0640 -o root -g paigow /dev/stdin "$conf/table.env"
else
  echo "# house: $house (already set in $conf/table.env)"
fi
# The deck: `appliance deck learn --faces FACES --out /etc/paigow-appliance/deck` (devices.toml: deck = "deck").
run install -d -m 2750 -o root -g paigow "$conf/deck"
if [ ! -e "$conf/audit.key" ]; then
  # A new key never signs on after an old log: the log would verify under neither.
  if ls /var/lib/paigow-appliance/audit/*.jsonl >/dev/null 2>&1; then
    echo "install.sh: $conf/audit.key is missing but /var/lib/paigow-appliance/audit holds a log: put back the key that signed it" >&2
    exit 2
  fi
  run "$venv/bin/appliance" audit keygen "$conf/audit.key"
  run chown paigow:paigow "$conf/audit.key"
  run chmod 0400 "$conf/audit.key"
fi

# 5. The service and the udev names of the serial devices.
# -D: a system without udev or a desktop yet (a chroot, a minimal image) lacks the folders.
run install -D -m 0644 systemd/paigow-appliance.service /etc/systemd/system/paigow-appliance.service
run install -D -m 0644 hardware/99-paigow.rules /etc/udev/rules.d/99-paigow.rules
if [ -d /run/systemd/system ] || [ -n "$dry" ]; then  # booted with systemd (sd_booted(3)), as a Pi is
  run udevadm control --reload
  run systemctl daemon-reload
else
  echo "# not booted with systemd (a chroot or an image): udev and systemd read the new files at the next boot"
fi

# 6. The touch screen: the desktop logs in by itself and opens the dashboard in kiosk mode.
run install -m 0755 systemd/paigow-kiosk /usr/local/bin/paigow-kiosk
run install -D -m 0644 systemd/paigow-kiosk.desktop /etc/xdg/autostart/paigow-kiosk.desktop
if [ -n "$pi" ]; then
  run raspi-config nonint do_boot_behaviour B4  # desktop, logged in automatically
  run raspi-config nonint do_blanking 1         # the screen never blanks during a shift
fi

# 7. Time: the gaming day starts at 06:00 local time, so the clock and the zone must be right.
echo "# time zone: $(timedatectl show -p Timezone --value 2>/dev/null || cat /etc/timezone 2>/dev/null || echo unknown)" \
  "(set it with: sudo timedatectl set-timezone Area/City; NTP or the RTC: hardware/README.md)"
[ -z "$dry" ] || { echo "Dry run: nothing was changed."; exit 0; }
cat <<EOF
Installed. Before starting the service:
  1. set the hardware in $conf/devices.toml: [start_seat] source ("rng", "dice" or "builtin"),
     [camera] source = "picamera2", [gpio] backend = "rpi-gpio" (the service refuses a simulated source)
  2. teach the deck: appliance deck learn --faces FACES --out $conf/deck
  3. add a supervisor: sudo appliance supervisor add ID --config $conf
Then: sudo systemctl enable --now paigow-appliance && journalctl -u paigow-appliance -f
EOF
