"""The one UTC timestamp format every record uses: ISO 8601, milliseconds, ``Z``
(``2026-11-30T17:47:54.123Z``), as gh-aw's and AWF's records spell it."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def utc_iso(ts: datetime | None = None) -> str:
    """``ts`` (default: now) as ``YYYY-MM-DDTHH:MM:SS.mmmZ``; a naive ``ts`` is taken as UTC."""
    ts = ts or utc_now()
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=UTC)
    elif ts.tzinfo is not UTC:
        ts = ts.astimezone(UTC)
    return ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")
