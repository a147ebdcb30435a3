"""Small text helpers shared by every layer: numbers written back and user input quoted.

The lowest layer of the core, next to :mod:`accelerators.errors`: standard library only.
"""

from __future__ import annotations

import hashlib
import re

__all__ = [
    "MIG_PROFILE_PATTERN",
    "TOPOLOGY_PATTERN",
    "flops_unit",
    "format_number",
    "implausible_count",
    "plain_typography",
    "printable",
    "quote",
    "redact",
    "safe_name",
    "shorten",
]

#: The shape of a MIG profile (``1g.10gb``, ``1g.10gb+me``, ``1g.10gb-me``) and of a TPU slice's
#: topology (``2x4``, ``4x4x8``). The catalog's schema checks its records with them, the grammar
#: reads a spec's partition with them and the name reader finds them in a name: one shape each.
MIG_PROFILE_PATTERN = r"[1-7]g\.[0-9]+gb(?:[+\-][a-z.]+)?"
TOPOLOGY_PATTERN = r"[0-9]+x[0-9]+(?:x[0-9]+)?"

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/@\s'\"]+)@")
_SECRET_QUERY = re.compile(
    r"(?i)([?&;](?:x-amz-signature|x-amz-credential|x-amz-security-token|signature|"
    r"awsaccesskeyid|password|passwd|secret|token|access_token|key|api_key|apikey)=)[^&\s'\"]*"
)


def implausible_count(value: float) -> bool:
    """Whether a number written as a count (``3970X``) is more likely a CPU's model number
    (AMD's Threadripper 3970X, Ryzen 5950X) than a count of devices: 1000 or more, and not a
    multiple of 128 (a cluster's 1024 or 4608 GPUs are)."""
    return value >= 1000 and value % 128 != 0


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


def _escaped(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (os.environ, file names)
        return f"\\x{code - 0xDC00:02x}"
    return ascii(ch)[1:-1]


def printable(text: str, limit: int | None = None) -> str:
    r"""``text`` as a terminal, a JSON file or a log may show it: characters a terminal would
    act on (ESC, a carriage return, a bidi override) and bytes that were not UTF-8 (the
    lone surrogates Python decodes them to) written as escapes (``\x1b``, ``\xff``), and
    cut to ``limit`` characters (:func:`shorten`).

    >>> print(printable("gpu-\x1b[31mnode\udcff"))
    gpu-\x1b[31mnode\xff
    """
    if not text.isprintable():  # surrogates are not printable either
        text = "".join(c if c.isprintable() else _escaped(c) for c in text)
    return text if limit is None else shorten(text, limit)


def safe_name(text: str, limit: int = 253) -> str:
    """A name from the environment (a node, a host) fit for JSON, HTML and the history:
    :func:`printable`, and when longer than ``limit`` (a Kubernetes node name's 253), its
    start and a hash of the whole, so distinct long names stay distinct.

    >>> safe_name("n" * 300)[-12:]
    'nnn~230b0774'
    """
    shown = printable(text)
    if len(shown) <= limit:
        return shown
    digest = hashlib.sha256(shown.encode("utf-8")).hexdigest()[:8]
    return f"{shown[: limit - 9]}~{digest}"


#: Typography a name may be printed with, each one character for one so that positions in
#: messages stay those of the text given: the trademark, registered and copyright signs
#: vendors print ("AMD Instinct\u2122 MI300X", "Intel\u00ae Gaudi\u00ae 2") are no word;
#: typographic hyphens and dashes are hyphens ("M1 Max 32\u2011Core GPU"); a multiplication
#: sign is the ``x`` of a count ("4\u00d7 A100"); no-break and thin spaces are spaces; the tilde
#: or the sign of an approximate figure is no word (JupyterHub profiles' "~16 GB, ~4 CPUs").
_TYPOGRAPHY = {0x2122: " ", 0x00AE: " ", 0x00A9: " ", 0x00D7: "x", 0x2212: "-"}
_TYPOGRAPHY |= {0x7E: " ", 0x2248: " "}
_TYPOGRAPHY |= dict.fromkeys(range(8208, 8214), "-")
_TYPOGRAPHY |= dict.fromkeys((160, 8199, 8201, 8239), " ")


#: The trademark and registered signs written in letters (Intel's "Intel(R) Gaudi(R) 2 AI
#: Accelerator", "Intel(R) Xeon(R)"; "(TM)").
_MARKS = re.compile(r"\((?:R|TM)\)", re.IGNORECASE)
#: A name written as a programming language's symbol (Elixir's and Ruby's atom ``:h100_sxm``,
#: as an SDK's GPU enum writes it): its colon is no part of the name.
_SYMBOL = re.compile(r"\s*(:)[A-Za-z][A-Za-z0-9_]*\s*\Z")


def plain_typography(text: str) -> str:
    """``text`` with its typography made plain (:data:`_TYPOGRAPHY`, :data:`_MARKS`): a sign is
    no word of a name, a typographic dash is a hyphen, and positions in messages stay those
    given. A lone symbol's colon (``:a100_80g``) is a blank, as the sign of a language's atom.

    >>> plain_typography(":a100_80g")
    ' a100_80g'
    """
    text = _MARKS.sub(lambda found: " " * len(found.group()), text)
    symbol = _SYMBOL.match(text)
    if symbol is not None:
        text = text[: symbol.start(1)] + " " + text[symbol.end(1) :]
    return text.translate(_TYPOGRAPHY)
