"""JSON over HTTPS for the price refreshers, with bounded retries on throttling (urllib: no HTTP
client package).

The Azure and GCP refreshers page through public price APIs. :func:`get_json` retries a
request answered 429 or 5xx (honouring ``Retry-After`` up to :data:`MAX_WAIT_S`) a bounded
number of times, and turns every failure (refused, timed out, not JSON, an error status) into
a :class:`~accelerators.sizing.SizingError` whose message quotes the URL with its API key
masked.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from accelerators._text import redact
from accelerators.sizing._model import SizingError

__all__ = ["MAX_WAIT_S", "RETRIES", "get_json"]

RETRIES = 4
"""Tries after the first for a throttled or failing (429, 5xx) answer."""
MAX_WAIT_S = 30.0
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_MAX_BYTES = 64 * 1024 * 1024


def get_json(
    url: str,
    *,
    timeout: float = 30.0,
    retries: int = RETRIES,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    headers: dict[str, str] | None = None,
) -> Any:
    """GET ``url`` and parse its JSON body, retrying throttled answers with backoff."""
    request = urllib.request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                body = answer.read(_MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            if exc.code in _RETRY_STATUS and attempt < retries:
                sleep(_wait(exc.headers.get("Retry-After"), backoff * 2**attempt))
                continue
            detail = exc.read(500).decode("utf-8", "replace").strip()
            raise SizingError(
                f"{redact(url)} answered HTTP {exc.code} {exc.reason}"
                + (f": {redact(detail)}" if detail else "")
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            if attempt < retries:
                sleep(backoff * 2**attempt)
                continue
            reason = getattr(exc, "reason", exc)
            raise SizingError(f"Cannot reach {redact(url)}: {redact(str(reason))}") from None
        if len(body) > _MAX_BYTES:
            raise SizingError(f"{redact(url)} answered more than {_MAX_BYTES} bytes")
        try:
            return json.loads(body)
        except ValueError:
            raise SizingError(
                f"{redact(url)} answered something that is not JSON: {body[:80]!r}"
            ) from None
    raise SizingError(f"{redact(url)} kept failing")  # pragma: no cover - the loop returns


def _wait(header: str | None, default: float) -> float:
    try:
        seconds = float(header) if header is not None else default
    except ValueError:
        seconds = default
    return min(max(seconds, 0.0), MAX_WAIT_S)
