"""Extract the accelerator rows of the machine-generated upstream sources into the data files
``scripts/instance_tables/sources/`` that ``generate.py`` reads (run by hand when a source moves).

    extract.py karpenter DOC.md REF > sources/aws-karpenter-NAME.tsv   (no dots in NAME)
    extract.py ec2 instance_types.json REF > sources/aws-ec2-api.tsv
    extract.py sagemaker REF > sources/aws-sagemaker.tsv
    extract.py azure AksNodeVmSizes.Generated.cs REF > sources/azure-skus.tsv

``DOC.md`` is a version of Karpenter's generated ``reference/instance-types.md``
(aws/karpenter-provider-aws); ``instance_types.json`` is EC2's DescribeInstanceTypes data as
moto ships it; the SageMaker names come from the installed botocore's SageMaker model;
``AksNodeVmSizes.Generated.cs`` is Microsoft's Aspire list generated from the Azure Resource SKUs
API. ``REF`` is what to cite (repository@commit:path). Each output starts with its citation.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import re
import sys
from pathlib import Path


def _header(title: str, url: str, note: str = "") -> list[str]:
    lines = [f"# title: {title}", f"# url: {url}", f"# retrieved: {dt.date.today().isoformat()}"]
    return lines + ([f"# note: {note}"] if note else [])


def karpenter(doc: str, ref: str) -> list[str]:
    out = _header(f"Karpenter generated instance-type reference, {ref}", _url(ref))
    out.append("instance\tgpu_name\tgpu_count\tgpu_memory_mib\taccelerator_name\taccelerator_count")
    for section in re.split(r"\n### `", Path(doc).read_text(encoding="utf-8"))[1:]:
        name = section.split("`")[0]
        labels = dict(re.findall(r"\|karpenter\.k8s\.aws/(instance-[a-z-]+)\|([^|]*)\|", section))
        if not any(k.startswith(("instance-gpu-", "instance-accelerator-")) for k in labels):
            continue
        fields = ("gpu-name", "gpu-count", "gpu-memory", "accelerator-name", "accelerator-count")
        out.append("\t".join([name, *(labels.get(f"instance-{f}", "-") or "-" for f in fields)]))
    return out


def ec2(path: str, ref: str) -> list[str]:
    out = _header(f"Amazon EC2 DescribeInstanceTypes data, {ref}", _url(ref))
    out.append("instance\tkind\tname\tcount\tpartition_size\tmemory_mib")
    for name, info in sorted(json.loads(Path(path).read_text(encoding="utf-8")).items()):
        for kind, key, devices in (
            ("gpu", "GpuInfo", "Gpus"),
            ("neuron", "NeuronInfo", "NeuronDevices"),
            ("inference", "InferenceAcceleratorInfo", "Accelerators"),
        ):
            for device in (info.get(key) or {}).get(devices, ()):
                size = device.get("GpuPartitionSize", "-")
                memory = device.get("MemoryInfo", {}).get("SizeInMiB", "-")
                out.append(f"{name}\t{kind}\t{device['Name']}\t{device['Count']}\t{size}\t{memory}")
    return out


def sagemaker(ref: str) -> list[str]:
    import botocore

    path = next(Path(botocore.__file__).parent.glob("data/sagemaker/*/service-2.json*"))
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:  # type: ignore[operator]
        shapes = json.load(handle)["shapes"]
    names = sorted(
        {e for s in shapes.values() if "enum" in s for e in s["enum"] if e.startswith("ml.")}
    )
    out = _header(
        f"botocore {botocore.__version__} SageMaker service model: every ml.* type its enums list",
        _url(ref),
    )
    return [*out, "instance", *names]


def azure(path: str, ref: str) -> list[str]:
    out = _header(
        f"Microsoft Aspire AksNodeVmSizes (generated from the Azure Resource SKUs API), {ref}",
        _url(ref),
        "GPU counts are the SKUs' 'GPUs' capability; '-' where the SKU data has none",
    )
    out.append("size\tvcpus\tmemory_gb\tgpus")
    pattern = re.compile(r"/// (Standard_N\S+) — (\d+) vCPUs — (\d+) GB RAM(?: — (\d+) GPU\(s\))?")
    rows = sorted(set(pattern.findall(Path(path).read_text(encoding="utf-8"))))
    return out + ["\t".join((size, cpus, ram, gpus or "-")) for size, cpus, ram, gpus in rows]


def _url(ref: str) -> str:
    repo, _, rest = ref.partition("@")
    commit, _, path = rest.partition(":")
    return (
        f"https://github.com/{repo}/blob/{commit}/{path}" if path else f"https://github.com/{repo}"
    )


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    lines = {"karpenter": karpenter, "ec2": ec2, "sagemaker": sagemaker, "azure": azure}[command](
        *args
    )
    sys.stdout.write("\n".join(lines) + "\n")
