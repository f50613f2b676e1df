"""certificates.py: one SSL context for each value of SSL_CERT_FILE and SSL_CERT_DIR."""

from __future__ import annotations

import ssl

import trustme

from certificates import trusted


def test_the_sessions_of_a_process_share_one_context_until_the_settings_change(monkeypatch, tmp_path):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first = trusted()
    assert trusted() is first and first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    authority = trustme.CA()
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    private = trusted()
    assert private is not first and private is trusted()
    subjects = [dict(item[0] for item in cert["subject"]) for cert in private.get_ca_certs()]
    assert any("trustme" in subject.get("organizationName", "") for subject in subjects)
