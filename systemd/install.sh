#!/usr/bin/env bash
# Installs the appliance as a service on Raspberry Pi OS (Debian 12). Run as root from the repository.
#   sudo systemd/install.sh            # then: sudo systemctl enable --now paigow-appliance
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/opt/paigow-appliance
conf=/etc/paigow-appliance

apt-get install -y python3-venv python3-picamera2  # Picamera2 comes from the OS packages
getent group gpio >/dev/null || groupadd --system gpio
id paigow >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin \
  --groups video,dialout,gpio paigow

python3 -m venv --system-site-packages "$prefix/venv"   # system site packages: picamera2
"$prefix/venv/bin/pip" install --upgrade pip
"$prefix/venv/bin/pip" install .
# GPIO: RPi.GPIO on a Pi 4, rpi-lgpio (same API) on a Pi 5; the two cannot be installed together.
if grep -q "Raspberry Pi 5" /proc/device-tree/model 2>/dev/null; then
  "$prefix/venv/bin/pip" uninstall -y RPi.GPIO || true
  "$prefix/venv/bin/pip" install rpi-lgpio
elif grep -q "Raspberry Pi" /proc/device-tree/model 2>/dev/null; then
  "$prefix/venv/bin/pip" install RPi.GPIO
fi
cp README.md "$prefix/"

install -d -m 0750 -o root -g paigow "$conf"
for f in config/devices.toml config/layout.toml; do
  [ -e "$conf/$(basename "$f")" ] || install -m 0640 -o root -g paigow "$f" "$conf/"
done
[ -e "$conf/houses" ] || cp -r config/houses "$conf/houses"
if [ ! -e "$conf/audit.key" ]; then
  "$prefix/venv/bin/appliance" audit keygen "$conf/audit.key"
  chown paigow:paigow "$conf/audit.key"
  chmod 0400 "$conf/audit.key"
fi

install -m 0644 systemd/paigow-appliance.service /etc/systemd/system/
install -m 0644 hardware/99-paigow.rules /etc/udev/rules.d/
udevadm control --reload
systemctl daemon-reload
echo "Installed. Start it with: systemctl enable --now paigow-appliance"
