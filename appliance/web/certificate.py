"""A self-signed certificate for the dashboard's first install (made with the ``cryptography``
package; no crypto of our own), and the SHA-256 fingerprint to pin it by in the floor's browsers
until the casino's own certificate authority issues one."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


class CertificateExists(ValueError):
    """A certificate or key is already there: never overwritten by accident."""


@dataclass(frozen=True)
class MadeCertificate:
    cert: Path
    key: Path
    sha256: str  # AA:BB:... as browsers show it

    def to_json(self) -> dict:
        return {"cert": str(self.cert), "key": str(self.key), "sha256": self.sha256}


def fingerprint(cert_pem: bytes) -> str:
    digest = x509.load_pem_x509_certificate(cert_pem).fingerprint(hashes.SHA256())
    return ":".join(f"{b:02X}" for b in digest)


def make_self_signed(folder: Path, names: list[str], days: int = 825, force: bool = False) -> MadeCertificate:
    """``dashboard.crt`` and ``dashboard.key`` (mode 600) in ``folder``, valid for ``names`` (DNS
    names or IP addresses) and for localhost, 127.0.0.1 and ::1."""
    cert_path, key_path = folder / "dashboard.crt", folder / "dashboard.key"
    if not force and (cert_path.exists() or key_path.exists()):
        raise CertificateExists(f"{folder}: a certificate or key is already there (--force replaces them)")
    key = ec.generate_private_key(ec.SECP256R1())
    everyone = list(dict.fromkeys([*names, "localhost", "127.0.0.1", "::1"]))
    now = dt.datetime.now(dt.UTC)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, everyone[0]),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Pai Gow appliance (self-signed)")])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName([_general_name(n) for n in everyone]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    pem = cert.public_bytes(serialization.Encoding.PEM)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    cert_path.write_bytes(pem)
    return MadeCertificate(cert_path, key_path, fingerprint(pem))


def _general_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)
