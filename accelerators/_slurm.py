"""Slurm's GPU options as users copy them from a batch script: ``--gres=gpu:a100:2``,
``#SBATCH --gpus-per-node=h100:4``. The option's value is a GRES (``gpu:TYPE:COUNT``) or a
``[TYPE:]COUNT``, both of which the spec grammar reads; the option itself says no more.

>>> slurm_option("--gres=gpu:a100:2")
'       gpu:a100:2'
>>> slurm_option("--partition=gpu --gres=gpu:a30")  # two options: left to the grammar
'--partition=gpu --gres=gpu:a30'
"""

from __future__ import annotations

import re

__all__ = ["slurm_option"]

#: One GPU option of sbatch/srun/salloc, alone (a directive's ``#SBATCH`` before it), its value
#: one word.
_OPTION = re.compile(
    r"\s*(?:#SBATCH\s+)?--(?:gres|gpus|gpus-per-node|gpus-per-task|gpus-per-socket)=(?=\S+\s*\Z)"
)


def slurm_option(text: str) -> str:
    """``text`` with a Slurm GPU option's name blanked (same length, so positions in messages
    stay those given), or ``text`` unchanged where it is no single such option."""
    found = _OPTION.match(text)
    return text if found is None else " " * found.end() + text[found.end() :]
