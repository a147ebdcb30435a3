"""Generate ``accelerators/data/instances.toml`` and ``prices.toml`` from their sources.

    python scripts/instance_tables/generate.py             # rewrite both tables
    python scripts/instance_tables/generate.py --check     # exit 1 if a shipped table differs
    python scripts/instance_tables/generate.py --coverage  # priced instance rows per cloud
    python scripts/instance_tables/generate.py --audit 400 # exit 1 on rows older than 400 days

Prices: ``price_tables.py`` (its docstring says how the sources are read and combined).

Every file in ``sources/`` is one source: a header (``# title:``, ``# url:``, ``# retrieved:``,
``# note:``) and tab-separated rows. Two kinds:

* machine-generated extracts (``extract.py`` writes them): Karpenter's generated EC2
  instance-type reference at three doc versions and the EC2 DescribeInstanceTypes data
  (``aws-*``), botocore's SageMaker instance types (``aws-sagemaker``) and the Azure Resource
  SKUs' GPU counts (``azure-skus``). The rules below turn their device names into catalog names;
* transcriptions (``name, accelerator, count, partition, confidence``) for clouds whose lists are
  pages, each file citing the page it was read on.

Each row of the table keeps the key of its source and a confidence, and every source keeps the
day it was read: a row without a source cannot be written. ``tests/test_instance_tables.py``
fails when the shipped table and this generator disagree.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
TABLE = HERE.parent.parent / "accelerators" / "data" / "instances.toml"
TABLE_VERSION = "2026.11.5"
sys.path.insert(0, str(TABLE.parent.parent.parent))
#: Display order of clouds (the table's schema lists them); within a cloud, rows follow their
#: source files.
from accelerators.catalog._instances import CLOUDS  # noqa: E402

sys.path.insert(0, str(HERE))
import price_tables  # noqa: E402

#: Clouds whose ids name one GPU model rented by the device (RunPod's gpuTypeId, Vast.ai's
#: gpu_name), not machine types: their rows carry ``unit = "device"``.
DEVICE_CLOUDS = ("runpod", "vastai")
_CLOUD_OF = {
    "aws": "aws",
    "gcp": "gcp",
    "azure": "azure",
    "oci": "oci",
    "lambda": "lambda",
    "scaleway": "scaleway",
    "runpod": "runpod",
    "vastai": "vastai",
    "paperspace": "paperspace",
    "hf": "hf",
}


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    url: str
    retrieved: str
    note: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Row:
    cloud: str
    name: str
    accelerator: str
    count: Fraction
    partition: str | None
    source: str
    confidence: str
    note: str | None = None

    @property
    def unit(self) -> str:
        """``device`` where the name is a GPU type rented by the device, not a machine type."""
        return "device" if self.cloud in DEVICE_CLOUDS else "machine"


def read_source(path: Path) -> Source:
    meta: dict[str, str] = {}
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            meta[key] = value
        elif line.strip():
            lines.append(tuple(line.split("\t")))
    for field in ("title", "url", "retrieved"):
        if not meta.get(field):
            raise SystemExit(f"{path.name}: the header has no '# {field}:' line")
    return Source(
        path.stem,
        meta["title"],
        meta["url"],
        meta["retrieved"],
        meta.get("note", ""),
        lines[0],
        tuple(lines[1:]),
    )


# -- AWS: Karpenter's generated reference and the EC2 API ------------------------------------
def _aws_model(name: str, memory_mib: int) -> str:
    """The catalog name of an EC2 GPU or accelerator (Karpenter's lower-case names)."""
    by_memory = {
        "a100": {40960: "A100-40GB", 81920: "A100-80GB"},
        "v100": {16384: "V100-16GB", 32768: "V100-32GB"},
    }
    if name in by_memory:
        return by_memory[name][memory_mib]
    return {
        "t4": "T4",
        "t4g": "T4G",
        "a10g": "A10G",
        "l4": "L4",
        "l40s": "L40S",
        "h100": "H100-SXM",
        "h200": "H200-SXM",
        "b200": "B200",
        "b300": "B300",
        "rtx-pro-server-6000": "RTX-PRO-6000",
        "rtx-pro-4500": "RTX-PRO-4500",
        "radeon-pro-v520": "V520",
        "qualcomm-ai100": "AI100",
        "inferentia": "INFERENTIA1",
        "inferentia2": "INFERENTIA2",
        "trainium": "TRAINIUM1",
        "trainium2": "TRAINIUM2",
        "gaudi-hl-205": "GAUDI1",
        "m60": "M60",
        "k80": "K80",
        "trainium2-ec2": "TRAINIUM2",
    }[name]


_EC2_NAMES = {"Trainium2": "TRAINIUM2", "L4": "L4"}


def aws(sources: dict[str, Source]) -> list[Row]:
    rows: dict[str, Row] = {}
    for key in ("aws-karpenter-v1-0", "aws-karpenter-v1-12", "aws-karpenter-docs"):
        for name, gpu, gpus, memory, acc, accs in sources[key].rows:
            device = gpu if gpu != "-" else acc
            count = int(gpus if gpu != "-" else accs)
            model = _aws_model(device, int(memory) if memory != "-" else 0)
            rows[name] = Row("aws", name, model, Fraction(count), None, key, "source")
    ec2 = sources["aws-ec2-api"]
    for name, _kind, device, count, size, _memory in ec2.rows:
        if name in rows and rows[name].count == 0:  # a fraction of a GPU: its partition size
            rows[name] = Row(
                "aws",
                name,
                rows[name].accelerator,
                Fraction(size),
                None,
                ec2.key,
                "source",
                "a fraction of one GPU (GpuPartitionSize)",
            )
        elif name not in rows:
            rows[name] = Row(
                "aws", name, _EC2_NAMES[device], Fraction(int(count)), None, ec2.key, "source"
            )
    return sorted(rows.values(), key=lambda r: _ec2_order(r.name))


def _ec2_order(name: str) -> tuple[str, int, str]:
    family, _, size = name.partition(".")
    number = re.match(r"([0-9]*)", size)
    return family, int(number[1] or 0) if number else 0, size


def sagemaker(sources: dict[str, Source], ec2: list[Row]) -> list[Row]:
    """Every ml.* type botocore lists whose EC2 type carries accelerators: that hardware."""
    by_name = {r.name: r for r in ec2}
    out = []
    for (name,) in sources["aws-sagemaker"].rows:
        base = by_name.get(name.removeprefix("ml."))
        if base is not None:
            out.append(
                Row(
                    "sagemaker",
                    name,
                    base.accelerator,
                    base.count,
                    None,
                    "aws-sagemaker",
                    "derived",
                    f"SageMaker's {base.name}",
                )
            )
    return sorted(out, key=lambda r: _ec2_order(r.name[3:]))


# -- Azure: the Resource SKUs' GPU counts, the size pages for what they leave out -------------
_AZURE_GPUS = (  # (pattern on the size name, catalog name), first match wins
    (r"_NC\d+ads_A100_v4$", "A100-80GB-PCIE"),
    (r"_ND96amsr_A100_v4$", "A100-80GB"),
    (r"_ND96asr_v4$", "A100-40GB"),
    (r"_NCC?\d+adi?s_H100_v5$", "H100-NVL"),
    (r"_ND96isr_H100_v5$", "H100-SXM"),
    (r"_ND96isr_H200_v5$", "H200-SXM"),
    (r"_ND96isr_MI300X_v5$", "MI300X"),
    (r"_GB200_v6$", "GB200"),
    (r"_GB300_v6$", "GB300"),
    (r"as_T4_v3$", "T4"),
    (r"_NC\d+r?s_v3$", "V100-16GB-PCIE"),
    (r"_ND40rs_v2$", "V100-32GB"),
    (r"_A10_v[45]$", "A10"),
    (r"_NV\d+s_v[23]$", "M60"),
    (r"_NV\d+as_v4$", "MI25"),
    (r"_RTXPRO6000BSE_v6$", "RTX-PRO-6000"),
    (r"_V620_v1$", "V620"),
    (r"_V710_v5$", "V710"),
)
#: Sizes left out: accelerators the catalog does not carry (FPGAs).
_AZURE_SKIP = re.compile(r"_NP\d+s$|_ND96is_MI300X_v5$")


def azure(sources: dict[str, Source]) -> list[Row]:
    docs = [s for k, s in sources.items() if k.startswith("azure-docs-")]
    from_docs = {row[0]: (row, s.key) for s in docs for row in s.rows}
    out = []
    for size, _cpus, _memory, gpus in sources["azure-skus"].rows:
        if _AZURE_SKIP.search(size):
            continue
        model = next(m for pattern, m in _AZURE_GPUS if re.search(pattern, size))
        if size in from_docs:
            (name, _acc, count, _p, conf), key = from_docs.pop(size)
            out.append(Row("azure", name, model, Fraction(count), None, key, conf))
        else:
            out.append(Row("azure", size, model, Fraction(int(gpus)), None, "azure-skus", "source"))
    for (name, acc, count, _p, conf), key in from_docs.values():  # sizes only the pages list
        out.append(Row("azure", name, acc, Fraction(count), None, key, conf))
    return out


def transcribed(source: Source) -> list[Row]:
    cloud = _CLOUD_OF[source.key.split("-")[0]]
    return [
        Row(cloud, name, acc, Fraction(count), None if part == "-" else part, source.key, conf)
        for name, acc, count, part, conf in source.rows
    ]


# -- the table ---------------------------------------------------------------------------------
def rows(sources: dict[str, Source]) -> list[Row]:
    ec2 = aws(sources)
    out = ec2 + sagemaker(sources, ec2) + azure(sources)
    for key in sorted(sources):
        if key.split("-")[0] in (
            "gcp",
            "oci",
            "lambda",
            "scaleway",
            "runpod",
            "vastai",
            "paperspace",
            "hf",
        ):
            out += transcribed(sources[key])
    order = {cloud: i for i, cloud in enumerate(CLOUDS)}
    return sorted(out, key=lambda r: order[r.cloud])  # stable: keeps each cloud's order


def render(sources: dict[str, Source] | None = None) -> str:
    sources = sources if sources is not None else load()
    table = rows(sources)
    used = list(dict.fromkeys(r.source for r in table))
    lines = [f"# {line}".rstrip() for line in _HEADER.splitlines()]
    lines += ["", "schema_version = 1", f'table_version = "{TABLE_VERSION}"', ""]
    for key in used:
        s = sources[key]
        lines += [
            f"[sources.{key}]",
            f"title = {_q(s.title)}",
            f"url = {_q(s.url)}",
            f'retrieved = "{s.retrieved}"',
        ]
        if s.note:
            lines.append(f"note = {_q(s.note)}")
        lines.append("")
    cloud = None
    for r in table:
        if r.cloud != cloud:
            cloud = r.cloud
            lines.append(f"# -- {cloud} {'-' * (110 - len(cloud))}")
        count = str(r.count.numerator) if r.count.denominator == 1 else repr(float(r.count))
        lines += [
            "[[instance]]",
            f'cloud = "{r.cloud}"',
            f"name = {_q(r.name)}",
            f'accelerator = "{r.accelerator}"',
            f"count = {count}",
        ]
        if r.partition:
            lines.append(f'partition = "{r.partition}"')
        if r.unit != "machine":
            lines.append(f'unit = "{r.unit}"')
        lines.append(f'source = "{r.source}"')
        if r.confidence != "source":
            lines.append(f'confidence = "{r.confidence}"')
        if r.note:
            lines.append(f"note = {_q(r.note)}")
        lines.append("")
    return "\n".join(lines)


_HEADER = """\
Cloud instance types and the accelerators they carry: the table behind
`AcceleratorSpec.parse("p5.48xlarge")` (H100:8), `accelerators.sizing.instances()` and the costs.

GENERATED by scripts/instance_tables/generate.py from scripts/instance_tables/sources/; do not
edit by hand: tests/test_instance_tables.py fails when this file and the generator disagree.

- [[instance]] rows: cloud, name (the cloud's instance, machine or GPU type; unique within its
  cloud), accelerator (a catalog model, or a SKU where the type pins a form factor), count
  (devices per instance; below 1 the fraction of one device the cloud sells), partition (a TPU
  host's slice topology or a MIG profile), source (a key of [sources.*], each with the day it
  was read) and confidence (source: read there; derived: by the cloud's documented naming rule,
  or SageMaker's ml.* type from its EC2 type; unconfirmed: see the source's note).
- names never shadow accelerator names: the grammar tries them after every accelerator spelling.
"""


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def load(directory: Path = SOURCES) -> dict[str, Source]:
    return {p.stem: read_source(p) for p in sorted(directory.glob("*.tsv"))}


def instance_dicts(sources: dict[str, Source] | None = None) -> list[dict[str, object]]:
    """The instance rows as the price generator reads them (cloud, name, accelerator, count)."""
    table = rows(sources if sources is not None else load())
    return [
        {"cloud": r.cloud, "name": r.name, "accelerator": r.accelerator, "count": r.count}
        for r in table
    ]


def render_prices(price_sources: dict[str, object] | None = None) -> str:
    """``prices.toml`` as the price sources make it (``price_tables`` does the work)."""
    found = price_sources if price_sources is not None else price_tables.load_price_sources()
    return str(price_tables.render_prices(found, instance_dicts()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--coverage", action="store_true", help="print priced rows per cloud")
    parser.add_argument(
        "--audit", type=int, metavar="DAYS", help="exit 1 if a price row is older than DAYS"
    )
    args = parser.parse_args(argv)
    if args.audit is not None or args.coverage:
        return _report(args.audit, args.coverage)
    outputs = (
        (TABLE, render(), "[[instance]]"),
        (price_tables.PRICE_TABLE, render_prices(), "[[price]]"),
    )
    status = 0
    for path, text, marker in outputs:
        if args.check:
            same = path.read_text(encoding="utf-8") == text
            print(f"{path.name} {'matches its sources' if same else 'is stale'}")
            status |= 0 if same else 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path} ({text.splitlines().count(marker)} rows)")
    return status


def _report(max_age: int | None, show_coverage: bool) -> int:
    instances = instance_dicts()
    found = price_tables.price_rows(price_tables.load_price_sources(), instances)
    if show_coverage:
        why = price_tables.check_unpriced(price_tables.load_unpriced(), found, instances)
        for cloud, (have, total) in price_tables.coverage(found, instances).items():
            reasons = sum(u.cloud == cloud for u in why)
            share = f"{have:>4} / {total:<4} {have / total:6.1%}"
            print(f"{cloud:<11} {share}  {reasons} with a reason")
    if max_age is None:
        return 0
    old = price_tables.stale(found, max_age, dt.date.today())
    for row in old:
        where = f" {row.region}" if row.region else ""
        print(f"stale: {row.cloud} {row.instance}{where} {row.kind} {row.date} ({row.source})")
    print(f"{len(old)} of {len(found)} price rows are older than {max_age} days")
    return 1 if old else 0


if __name__ == "__main__":
    sys.exit(main())
