"""Looking for a secret in every encoding the attack tests try: as written, reversed, hex, and
12-character runs of its base64 and base64url at each byte alignment."""

from __future__ import annotations

import base64
from collections.abc import Iterable


def encodings(secret: str) -> list[str]:
    data = secret.encode()
    forms = [secret, secret[::-1], data.hex(), data.hex().upper()]
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for k in range(3):
            core = encode(b"\0" * k + data).decode()[-(-8 * k // 6) : 8 * (k + len(data)) // 6]
            forms += [core[i : i + 12] for i in range(0, len(core) - 11, 6)]
    return forms


def leaked(secrets: Iterable[str], text: str) -> set[str]:
    """The secrets any of whose encodings appear in ``text``, read forwards or backwards (so a
    reversed base64 dump counts), line breaks ignored."""
    flat = text.replace("\n", "").replace("\\n", "")
    haystacks = (flat, flat.lower(), flat[::-1], flat[::-1].lower())
    return {s for s in secrets for form in encodings(s) if any(form in h or form.lower() in h for h in haystacks)}
