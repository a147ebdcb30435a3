"""The vendor registry: one record per accelerator vendor, from which every vendor table is read.

A vendor's facts used to be written out wherever they were needed (the spec grammar's vendor
words, the factories' namespaces, the Kubernetes device-plugin resources and taints, Flyte's
device strings, the probes that detect its devices…). Each of those places now reads
:data:`VENDORS`, so adding a vendor is one :class:`VendorRecord` here, plus its catalog entries
and its detection probe module (``CONTRIBUTING.md``, "Adding a vendor"). Two typed mirrors
stay in the code for the type checkers, and ``tests/test_vendors.py`` holds them to this
registry: the catalog's ``Vendor`` and ``DeviceClass`` literals and the ``AcceleratorSpec.<Vendor>``
factory namespaces.

Every fact carries where it comes from: the device plugins' resource names are those their
daemonsets advertise (NVIDIA's k8s-device-plugin, ROCm's k8s-device-plugin, Intel's
intel-device-plugins-for-kubernetes, GKE's TPU device plugin, the AWS Neuron device plugin,
Habana's device plugin, Huawei's mind-cluster Ascend device plugin, Qualcomm's Cloud AI
device plugin, the Tenstorrent device plugins in development, FuriosaAI's device plugin, and
for Cambricon, Hygon, Iluvatar, MetaX, Moore Threads and Biren the resources HAMi's chart and
GPUStack's manufacturer table give for their plugins).

Standard library only: the tokenizer and ``import accelerators`` read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "CLOUD_VENDORS",
    "VENDORS",
    "DeviceRecord",
    "VendorRecord",
    "device_classes",
    "device_records",
    "vendor_names",
    "vendor_record",
]


@dataclass(frozen=True)
class DeviceRecord:
    """One class of device a vendor makes, as the catalog and the device plugins name it.

    :param device_class: the catalog's ``device_class`` (``gpu``, ``tpu``, ``neuron``…).
    :param noun: how messages name one device (``"GPU"``, ``"Gaudi HPU"``).
    :param resource: the device plugin's extended resource for one whole device.
    :param flyte_prefix: the prefix of a Flyte device string derived for an entry that has
        no ``names.flyte`` (``nvidia-``: ``nvidia-a100-40gb-pcie``).
    :param other_resources: the same plugin's other resources that count devices (shared
        slots, cores, another driver's name).
    """

    device_class: str
    noun: str
    resource: str
    flyte_prefix: str
    other_resources: tuple[str, ...] = ()


@dataclass(frozen=True)
class VendorRecord:
    """One vendor: its names, its device classes and how its devices are found.

    :param name: the catalog's ``vendor`` and the spec grammar's vendor word (``nvidia``).
    :param display: how the vendor writes its name; also its factory namespace,
        ``AcceleratorSpec.NVIDIA``.
    :param article: ``"an"`` or ``"a"``, for ``"H100-SXM is an NVIDIA GPU"``.
    :param devices: its device classes, the first being its main one.
    :param words: product-line words that stand for the vendor in a device name (``tesla``,
        ``instinct``): skipped when naming factories, ignored when matching names.
    :param products: the product lines, for documentation (``"Instinct, Radeon"``).
    :param resource_families: prefixes of device-plugin resources that all count its
        devices (``nvidia.com/mig-``: one resource per MIG profile).
    :param taint: (resource prefix, taint key): the taint that nodes with any resource of
        that prefix conventionally carry (``nvidia.com/gpu`` for every ``nvidia.com/``
        resource); resources outside it are tainted by their own name.
    :param probes: its detection probes, ``"module:Class"``, in the order they run
        (:func:`accelerators.detect.default_probes` runs the vendors' probes in registry order).
    """

    name: str
    display: str
    article: str
    devices: tuple[DeviceRecord, ...]
    words: tuple[str, ...] = ()
    products: str = ""
    resource_families: tuple[str, ...] = ()
    taint: tuple[str, str] | None = None
    probes: tuple[str, ...] = ()

    def device(self, device_class: str) -> DeviceRecord | None:
        """The record of ``device_class``, or ``None`` when the vendor makes no such device."""
        return next((d for d in self.devices if d.device_class == device_class), None)


#: Every vendor, in the order messages list them and probes run.
VENDORS: tuple[VendorRecord, ...] = (
    VendorRecord(
        name="nvidia",
        display="NVIDIA",
        article="an",
        devices=(
            DeviceRecord(
                "gpu",
                "GPU",
                "nvidia.com/gpu",
                "nvidia-",
                other_resources=("nvidia.com/gpu.shared",),
            ),
        ),
        words=("tesla", "geforce"),
        resource_families=("nvidia.com/mig-",),
        taint=("nvidia.com/", "nvidia.com/gpu"),
        probes=(
            "accelerators.detect._nvidia:NvmlProbe",
            "accelerators.detect._nvidia:TorchCudaProbe",
        ),
    ),
    VendorRecord(
        name="amd",
        display="AMD",
        article="an",
        devices=(DeviceRecord("gpu", "GPU", "amd.com/gpu", "amd-"),),
        words=("instinct", "radeon"),
        products="Instinct, Radeon",
        resource_families=("amd.com/",),
        taint=("amd.com/", "amd.com/gpu"),
        probes=("accelerators.detect._rocm:RocmProbe",),
    ),
    VendorRecord(
        name="intel",
        display="Intel",
        article="an",
        devices=(
            DeviceRecord("gpu", "GPU", "gpu.intel.com/i915", "intel-", ("gpu.intel.com/xe",)),
            DeviceRecord("hpu", "Gaudi HPU", "habana.ai/gaudi", "habana-"),
        ),
        words=("habana",),
        products="Gaudi, Max, Flex, Arc",
        probes=("accelerators.detect._gaudi:GaudiProbe",),
    ),
    VendorRecord(
        name="google",
        display="Google",
        article="a",
        devices=(DeviceRecord("tpu", "TPU", "google.com/tpu", "tpu-"),),
        probes=("accelerators.detect._tpu:TpuProbe",),
    ),
    VendorRecord(
        name="aws",
        display="AWS",
        article="an",
        devices=(
            DeviceRecord(
                "neuron",
                "Neuron device",
                "aws.amazon.com/neuron",
                "aws-neuron-",
                ("aws.amazon.com/neuroncore", "aws.amazon.com/neurondevice"),
            ),
        ),
        words=("amazon",),
        products="Trainium, Inferentia",
        taint=("aws.amazon.com/neuron", "aws.amazon.com/neuron"),
        probes=("accelerators.detect._neuron:NeuronProbe",),
    ),
    VendorRecord(
        name="huawei",
        display="Huawei",
        article="a",
        # mind-cluster's device plugin: one resource for the Ascend 910 family
        devices=(DeviceRecord("npu", "Ascend NPU", "huawei.com/Ascend910", "huawei-"),),
        products="Ascend",
    ),
    VendorRecord(
        name="qualcomm",
        display="Qualcomm",
        article="a",
        # Qualcomm's Cloud AI device plugin: one resource per AI 100 SoC
        devices=(DeviceRecord("npu", "Cloud AI NPU", "qualcomm.com/qaic", "qualcomm-"),),
        products="Cloud AI 100",
    ),
    # The Chinese vendors below: the resources their device plugins advertise, as HAMi's chart
    # (Project-HAMi/HAMi charts/hami values.yaml and device-configmap.yaml, 4707fb0) and GPUStack's
    # manufacturer table name them; no node-taint convention was found for any of them.
    VendorRecord(
        name="cambricon",
        display="Cambricon",
        article="a",
        # Cambricon's cambricon-device-plugin: one cambricon.com/mlu per MLU
        devices=(DeviceRecord("npu", "Cambricon MLU", "cambricon.com/mlu", "cambricon-"),),
        products="MLU",
    ),
    VendorRecord(
        name="hygon",
        display="Hygon",
        article="a",
        # Hygon's DCU device plugin: one hygon.com/dcu per DCU
        devices=(DeviceRecord("gpu", "Hygon DCU", "hygon.com/dcu", "hygon-"),),
        products="DCU",
    ),
    VendorRecord(
        name="iluvatar",
        display="Iluvatar",
        article="an",
        # Iluvatar CoreX's ix-device-plugin: iluvatar.ai/gpu; its newer plugin (and GPUStack's
        # table) names iluvatar.com/gpu
        devices=(
            DeviceRecord(
                "gpu", "Iluvatar CoreX GPU", "iluvatar.ai/gpu", "iluvatar-", ("iluvatar.com/gpu",)
            ),
        ),
        products="CoreX (Tiangai, Zhikai)",
    ),
    VendorRecord(
        name="metax",
        display="MetaX",
        article="a",
        # MetaX's gpu-device plugin: metax-tech.com/gpu per GPU; its sGPU plugin's shares
        devices=(
            DeviceRecord(
                "gpu", "MetaX GPU", "metax-tech.com/gpu", "metax-", ("metax-tech.com/sgpu",)
            ),
        ),
        products="Xiyun C",
    ),
    VendorRecord(
        name="mthreads",
        display="MooreThreads",
        article="a",
        # Moore Threads' mthreads-device-plugin: mthreads.com/gpu; its shared vGPU slots
        devices=(
            DeviceRecord(
                "gpu", "Moore Threads GPU", "mthreads.com/gpu", "mthreads-", ("mthreads.com/vgpu",)
            ),
        ),
        products="MTT S",
    ),
    VendorRecord(
        name="biren",
        display="Biren",
        article="a",
        # Biren's device plugin as HAMi's chart names it: birentech.com/gpu
        devices=(DeviceRecord("gpu", "Biren GPU", "birentech.com/gpu", "biren-"),),
        products="BR100",
    ),
    VendorRecord(
        name="tenstorrent",
        display="Tenstorrent",
        article="a",
        # Tenstorrent's own Kubernetes path is a DRA driver (no extended resource); the device
        # plugins in development name one resource per card type: tenstorrent.com/n150, n300
        # (n300, n300s, n300l), blackhole (p100a, p150a/b/c, p300). The registry holds one
        # resource per vendor and class: placement asks for tenstorrent.com/n150 unless
        # resource_name= names the card's own. (tt-mnijjar/k8s-device-plugin README at 24ea831;
        # guhaneswaran/tt-k8s-device-plugin; docs.tenstorrent.com/tt-dra-driver.)
        devices=(
            DeviceRecord(
                "npu",
                "Tensix processor",
                "tenstorrent.com/n150",
                "tenstorrent-",
                ("tenstorrent.com/n300", "tenstorrent.com/blackhole"),
            ),
        ),
        products="Wormhole, Blackhole",
    ),
    VendorRecord(
        name="furiosa",
        display="FuriosaAI",
        article="a",
        # FuriosaAI's device plugin: one furiosa.ai/rngd per RNGD card (its Kubernetes docs);
        # the Warboy-era plugin's furiosa.ai/npu
        devices=(DeviceRecord("npu", "NPU", "furiosa.ai/rngd", "furiosa-", ("furiosa.ai/npu",)),),
        products="RNGD, Warboy",
    ),
    VendorRecord(
        name="apple",
        display="Apple",
        article="an",
        # Apple silicon's GPU, rented as whole Macs (EC2 Mac, Scaleway, MacStadium). Apple ships
        # no Kubernetes device plugin: apple.com/gpu is the resource the community setups
        # advertise for it (okamototk/k8s-mac, through squat/generic-device-plugin, for a
        # Linux VM's Venus/Vulkan view of the GPU); no node-taint convention was found.
        devices=(DeviceRecord("gpu", "Apple silicon GPU", "apple.com/gpu", "apple-"),),
        products="M1, M2, M3, M4",
    ),
)


#: Vendors that are clouds too (AWS, Google, Huawei): their word beside another vendor's board
#: says where the board runs (Friendli's ``aws-v100``, DAWNBench's ``1 K80 / AWS p2.xlarge``),
#: not who makes it.
CLOUD_VENDORS = frozenset({"aws", "google", "huawei"})


def vendor_names() -> tuple[str, ...]:
    """The vendors' catalog names, in registry order (``("nvidia", "amd", …)``)."""
    return tuple(v.name for v in VENDORS)


def vendor_record(name: str) -> VendorRecord | None:
    """The record of vendor ``name`` (a catalog name, any case), or ``None``."""
    folded = name.casefold()
    return next((v for v in VENDORS if v.name == folded), None)


def device_records() -> Iterator[tuple[VendorRecord, DeviceRecord]]:
    """Every (vendor, device class) pair, in registry order."""
    for vendor in VENDORS:
        for device in vendor.devices:
            yield vendor, device


def device_classes() -> tuple[str, ...]:
    """Every device class some vendor makes, each once, in registry order."""
    return tuple(dict.fromkeys(d.device_class for _, d in device_records()))
