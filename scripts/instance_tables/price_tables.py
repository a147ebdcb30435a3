"""Generate ``accelerators/data/prices.toml`` from the reduced price sources in ``prices/``.

Every file in ``prices/`` is one dated source: a header (``# title:``, ``# url:``,
``# retrieved:``, optional ``# published:``, ``# commit:``, ``# cloud:``, ``# confidence:``,
``# note:``) and tab-separated rows reduced by hand from the public file the URL names (the
repository commit is in the URL). Rows hold USD per hour of one priced item in one region
(``-``: the same price everywhere), on-demand and, where published, spot.

For each instance row of ``instances.toml`` and each kind the table keeps the **cheapest** region
and the **median** region (the lower median of the regions' prices), named, so a plan can price
anywhere without shipping every region (the live refreshers cache every region). Traps handled
here, each from the data:

* GCP bills the GPUs of an A2/A3/A4/G2 machine apart from the VM: a machine's price is its host
  row (``a2-highgpu-1g``: vCPUs and memory) plus the GPU row (``gpu:A100`` x count) of the same
  region. TPU VM prices already include the host. A GCP source whose rows name ``instance``
  instead of ``item`` (a transcription of Google's whole-VM rates, e.g. G4) is read as is.
* The GCP catalog prices some accelerator SKUs in some regions at another SKU's rate (a spot
  price above the on-demand one, or under 0.6 of the other regions'): those regions are dropped.
* Per-GPU sources (RunPod) price one device: the RunPod rows *are* one device (``unit=device``).
* ``us-gov-*`` regions (not open to all accounts) and rows priced 0 are left out.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PRICE_SOURCES = HERE / "prices"
PRICE_TABLE = HERE.parent.parent / "accelerators" / "data" / "prices.toml"
PRICE_TABLE_VERSION = "2026.11.3"
#: Instance rows no source read prices, each with the reason (``cloud, instance, reason``).
UNPRICED = HERE / "unpriced.tsv"
#: Below this share of the upper half of a GPU SKU's regional prices, a GCP region's figure is
#: another SKU's (flex-start, committed) and is dropped.
GCP_OUTLIER = 0.6
_GCP_GPU = {  # catalog accelerator -> the GPU item the GCP source names
    "A100-40GB": "A100",
    "A100-80GB": "A100-80GB",
    "H100-SXM": "H100",
    "H100-MEGA": "H100-MEGA",
    "H200-SXM": "H200",
    "B200": "B200",
    "L4": "L4",
}
_GCP_TPU = {  # catalog accelerator -> (TPU item prefix, TensorCores per chip in the name)
    "TPU-V5E": ("tpu-v5litepod-", 1),
    "TPU-V6E": ("tpu-v6e-", 1),
    "TPU-V5P": ("tpu-v5p-", 2),
    "TPU-V4": ("tpu-v4-", 2),
}


@dataclass(frozen=True)
class PriceSource:
    key: str
    meta: dict[str, str]
    rows: tuple[dict[str, str], ...]

    @property
    def date(self) -> str:
        return self.meta.get("published") or self.meta["retrieved"]

    @property
    def cloud(self) -> str:
        return self.meta["cloud"]


@dataclass(frozen=True)
class PriceRow:
    cloud: str
    instance: str
    region: str | None
    kind: str
    usd: float
    date: str
    source: str
    confidence: str
    note: str | None = None


@dataclass
class _Regional:
    """Regional prices of one item: region -> (on-demand, spot or None)."""

    prices: dict[str, tuple[float, float | None]] = field(default_factory=dict)
    derived: bool = False


@dataclass(frozen=True)
class Unpriced:
    """An instance row left without an on-demand price, and why."""

    cloud: str
    instance: str
    reason: str


def load_unpriced(path: Path = UNPRICED) -> list[Unpriced]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            cloud, instance, reason = line.split("\t")
            if cloud != "cloud":  # the header line
                rows.append(Unpriced(cloud, instance, reason))
    return rows


def check_unpriced(
    unpriced: list[Unpriced], rows: list[PriceRow], instances: list[dict[str, Any]]
) -> list[Unpriced]:
    """The documented rows in table order; refuse one the table lacks or one that has a price."""
    order = {(r["cloud"], r["name"].casefold()): i for i, r in enumerate(instances)}
    priced = {(r.cloud, r.instance.casefold()) for r in rows if r.kind == "on-demand"}
    for row in unpriced:
        key = (row.cloud, row.instance.casefold())
        if key not in order:
            raise SystemExit(f"unpriced.tsv: {row.cloud} {row.instance!r} is not an instance row")
        if key in priced:
            raise SystemExit(
                f"unpriced.tsv: {row.cloud} {row.instance!r} has an on-demand price; drop its line"
            )
    return sorted(unpriced, key=lambda u: order[(u.cloud, u.instance.casefold())])


def read_price_source(path: Path) -> PriceSource:
    meta: dict[str, str] = {}
    lines: list[list[str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            meta[key] = value
        elif line.strip():
            lines.append(line.split("\t"))
    for key in ("title", "url", "retrieved", "cloud"):
        if not meta.get(key):
            raise SystemExit(f"{path.name}: the header has no '# {key}:' line")
    header, body = lines[0], lines[1:]
    rows = tuple(dict(zip(header, row, strict=True)) for row in body)
    return PriceSource(path.stem, meta, rows)


def load_price_sources(directory: Path = PRICE_SOURCES) -> dict[str, PriceSource]:
    return {p.stem: read_price_source(p) for p in sorted(directory.glob("*.tsv"))}


def _number(text: str | None, zero: bool = False) -> float | None:
    """A positive price (or 0 where ``zero``: a GCP host row whose GPU price covers it)."""
    if text is None or text.strip() in ("", "-"):
        return None
    value = float(text)
    return value if value > 0 or (zero and value == 0) else None


def _region(text: str) -> str | None:
    return None if text in ("-", "") else text


def _regional(source: PriceSource, item_key: str = "instance") -> dict[str, _Regional]:
    """Item -> its regional prices; us-gov regions and zero prices left out."""
    found: dict[str, _Regional] = {}
    for row in source.rows:
        region = row["region"]
        if region.startswith("us-gov-"):
            continue
        item = row[item_key]
        host = item_key == "item" and not item.startswith(("gpu:", "derived:gpu:"))
        usd = _number(row.get("usd_per_hour"), zero=host)
        if usd is None:
            continue
        spot = _number(row.get("spot_usd_per_hour"), zero=host)
        if row.get("count", "-") not in ("-", ""):
            item = f"{item}:{row['count']}"
        entry = found.setdefault(item.removeprefix("derived:"), _Regional())
        entry.derived = entry.derived or item.startswith("derived:")
        entry.prices[region] = (usd, spot)
    return found


def _drop_gcp_outliers(items: dict[str, _Regional]) -> dict[str, list[str]]:
    """Drop the regions of GCP accelerator items priced at another SKU's rate; say which."""
    dropped: dict[str, list[str]] = {}
    for name, entry in items.items():
        if not name.startswith("gpu:"):
            continue
        values = sorted(usd for usd, _ in entry.prices.values())
        upper = values[len(values) // 2 :]
        floor = GCP_OUTLIER * statistics.median(upper)
        for region, (usd, spot) in list(entry.prices.items()):
            if usd < floor or (spot is not None and spot > usd):
                del entry.prices[region]
                dropped.setdefault(name, []).append(region)
    return dropped


def _gcp_machines(
    source: PriceSource, instances: list[dict[str, Any]]
) -> dict[str, tuple[_Regional, str]]:
    """GCP machine type -> its regional prices (host + accelerators) and how they were summed."""
    items = _regional(source, "item")
    dropped = _drop_gcp_outliers(items)
    out: dict[str, tuple[_Regional, str]] = {}
    for row in instances:
        if row["cloud"] != "gcp":
            continue
        name, acc, count = row["name"], row["accelerator"], int(row["count"])
        if acc in _GCP_TPU:
            prefix, cores = _GCP_TPU[acc]
            item = f"gpu:{prefix}{count * cores}:1"
            if item in items:
                how = f"TPU VM price of {item[4:-2]} ({count} chips, host included)"
                out[name] = (items[item], how)
            continue
        gpu = f"gpu:{_GCP_GPU.get(acc, '?')}:{count}"
        host = items.get(name)
        if host is None or gpu not in items:
            continue
        summed = _Regional(derived=host.derived)
        for region, (usd, spot) in host.prices.items():
            if region in items[gpu].prices:
                g_usd, g_spot = items[gpu].prices[region]
                both = None if spot is None or g_spot is None else spot + g_spot
                summed.prices[region] = (usd + g_usd, both)
        if summed.prices:
            left = dropped.get(gpu)
            how = f"host VM + {count} x {gpu[4:].split(':')[0]} GPU (GCP bills GPUs apart)"
            if left:
                how += f"; {len(left)} regions' GPU figures left out as another SKU's"
            out[name] = (summed, how)
    return out


def _select(
    cloud: str, name: str, entry: _Regional, source: PriceSource, how: str | None
) -> list[PriceRow]:
    """The cheapest and the median region of each kind, as rows."""
    out: list[PriceRow] = []
    derived = entry.derived or (how is not None and cloud == "gcp")
    confidence = source.meta.get("confidence") or ("derived" if derived else "third-party")
    for kind, pick in (("on-demand", 0), ("spot", 1)):
        regional = sorted(
            (p[pick], region) for region, p in entry.prices.items() if p[pick] is not None
        )
        if not regional:
            continue
        n = len(regional)
        chosen = [(regional[0], f"cheapest of {n} regions" if n > 1 else None)]
        median = regional[(n - 1) // 2]
        if n > 2 and median[1] != regional[0][1]:
            chosen.append((median, f"median of {n} regions"))
        for (usd, region), role in chosen:
            note = "; ".join(part for part in (role, how) if part) or None
            out.append(
                PriceRow(
                    cloud,
                    name,
                    _region(region),
                    kind,
                    round(usd, 6),
                    source.date,
                    source.key,
                    confidence,
                    note,
                )
            )
    return out


def price_rows(sources: dict[str, PriceSource], instances: list[dict[str, Any]]) -> list[PriceRow]:
    """Every shipped price row, in instance-table order."""
    by_cloud: dict[str, list[tuple[str, _Regional, PriceSource, str | None]]] = {}
    for source in sources.values():
        if source.cloud == "gcp" and source.rows and "item" in source.rows[0]:
            for name, (entry, how) in _gcp_machines(source, instances).items():
                by_cloud.setdefault("gcp", []).append((name, entry, source, how))
            continue
        for name, entry in _regional(source).items():
            by_cloud.setdefault(source.cloud, []).append((name, entry, source, None))
    out: list[PriceRow] = []
    seen: set[tuple[str, str, str | None, str]] = set()
    for row in instances:
        for name, entry, source, how in by_cloud.get(row["cloud"], ()):
            if name.casefold() != row["name"].casefold():
                continue
            for price in _select(row["cloud"], row["name"], entry, source, how):
                key = (price.cloud, price.instance, price.region, price.kind)
                if key not in seen:  # the first source (file order) wins a region
                    seen.add(key)
                    out.append(price)
    return out


def coverage(rows: list[PriceRow], instances: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Cloud -> (instance rows with an on-demand price, instance rows)."""
    priced = {(r.cloud, r.instance) for r in rows if r.kind == "on-demand"}
    out: dict[str, tuple[int, int]] = {}
    for row in instances:
        have, total = out.get(row["cloud"], (0, 0))
        out[row["cloud"]] = (have + ((row["cloud"], row["name"]) in priced), total + 1)
    return out


def stale(rows: list[PriceRow], max_age_days: int, today: dt.date) -> list[PriceRow]:
    """Rows whose date is more than ``max_age_days`` before ``today``."""
    limit = today - dt.timedelta(days=max_age_days)
    return [r for r in rows if dt.date.fromisoformat(r.date) < limit]


def render_prices(
    sources: dict[str, PriceSource],
    instances: list[dict[str, Any]],
    unpriced: list[Unpriced] | None = None,
) -> str:
    rows = price_rows(sources, instances)
    documented = check_unpriced(load_unpriced() if unpriced is None else unpriced, rows, instances)
    used = list(dict.fromkeys(r.source for r in rows))
    lines = [f"# {line}".rstrip() for line in _HEADER.splitlines()]
    lines += ["", "schema_version = 1", f'table_version = "{PRICE_TABLE_VERSION}"', ""]
    for key in used:
        meta = sources[key].meta
        lines += [f"[sources.{key}]", f"title = {_q(meta['title'])}", f"url = {_q(meta['url'])}"]
        lines.append(f'retrieved = "{meta["retrieved"]}"')
        if meta.get("note"):
            lines.append(f"note = {_q(meta['note'])}")
        lines.append("")
    cloud = None
    for r in rows:
        if r.cloud != cloud:
            cloud = r.cloud
            lines.append(f"# -- {cloud} {'-' * (110 - len(cloud))}")
        lines += ["[[price]]", f'cloud = "{r.cloud}"', f"instance = {_q(r.instance)}"]
        if r.region is not None:
            lines.append(f"region = {_q(r.region)}")
        lines += [
            f'kind = "{r.kind}"',
            f"usd_per_hour = {r.usd!r}",
            f'date = "{r.date}"',
            f'source = "{r.source}"',
        ]
        if r.confidence != "source":
            lines.append(f'confidence = "{r.confidence}"')
        if r.note:
            lines.append(f"note = {_q(r.note)}")
        lines.append("")
    if documented:
        lines.append(f"# -- instance rows no source read prices {'-' * 73}")
    for u in documented:
        lines += ["[[unpriced]]", f'cloud = "{u.cloud}"', f"instance = {_q(u.instance)}"]
        lines += [f"reason = {_q(u.reason)}", ""]
    return "\n".join(lines)


_HEADER = """\
Hourly prices of whole cloud instances (accelerators included): the table behind the costs,
`accelerators plan`, `recommend` and `instances`.

GENERATED by scripts/instance_tables/generate.py from scripts/instance_tables/prices/ (reduced,
dated copies of public price tables); do not edit by hand: tests/test_instance_tables.py fails
when this file and the generator disagree.

- [[price]] rows: cloud, instance (a name in instances.toml), region (absent where the source
  gives one price everywhere), kind (on-demand | spot), usd_per_hour (the whole instance, per
  hour), date (the source's publication date where it gives one, else the day it was read),
  source (a key of [sources.*], its URL naming the repository commit) and confidence (source:
  the vendor's own page; third-party: a dated third-party table; derived: summed from the
  source's figures, the note says how). The note names each row's role: the cheapest or the
  median of the regions the source prices.
- [[unpriced]] rows: an instance row no source read prices (on demand), and why
  (scripts/instance_tables/unpriced.tsv); `accelerators prices coverage` prints them.
- Live refreshes (accelerators.sizing.aws / azure / gcp) cache every region and are read first.
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
