"""Small text helpers shared by every layer: numbers written back and user input quoted.

The lowest layer of the core, next to :mod:`accelerators.errors`: standard library only.
"""

from __future__ import annotations

import re

__all__ = ["flops_unit", "format_number", "quote", "redact", "shorten"]

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/@\s'\"]+)@")
_SECRET_QUERY = re.compile(
    r"(?i)([?&;](?:x-amz-signature|x-amz-credential|x-amz-security-token|signature|"
    r"awsaccesskeyid|password|passwd|secret|token|access_token|key|api_key|apikey)=)[^&\s'\"]*"
)


def format_number(value: float) -> str:
    """Shortest text that reads back as ``value``, never in exponent form (``0.00001``).

    Integers (Python ints of any size, or floats with no fractional part) are written as
    integers, exactly.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if float(value).is_integer():
        return str(int(value))
    from decimal import Decimal  # only for a fraction: most numbers printed are whole

    return format(Decimal(repr(float(value))), "f")


def shorten(text: str, limit: int = 60) -> str:
    """``text`` itself, or its start and end around ``...`` when longer than ``limit``."""
    if len(text) <= limit:
        return text
    keep = (limit - 3) // 2
    return f"{text[:keep]}...{text[-keep:]}"


def quote(text: str, limit: int = 60) -> str:
    """``repr(text)``, shortened in the middle when long (messages quote user input)."""
    return repr(shorten(text, limit))


def flops_unit(tflops: float) -> tuple[float, str]:
    """How to show a rate given in TFLOPS: ``(factor, unit)``, GFLOPS below 1 TFLOPS (a CPU)."""
    return (1e3, "GFLOPS") if tflops < 1.0 else (1.0, "TFLOPS")


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it masked: the password of
    ``scheme://user:password@host`` (a bare ``token@`` entirely) and signature, credential,
    token and password query values. For messages and reports that quote a URL.

    >>> redact("Could not connect to http://admin:s3cret@minio:9000/bucket?X-Amz-Signature=ab")
    'Could not connect to http://admin:***@minio:9000/bucket?X-Amz-Signature=***'
    """

    def mask(match: re.Match[str]) -> str:
        user, colon, _ = match[2].partition(":")
        return f"{match[1]}{user}:***@" if colon else f"{match[1]}***@"

    return _SECRET_QUERY.sub(r"\1***", _USERINFO.sub(mask, text))
