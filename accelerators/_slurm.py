"""Slurm's GPU options as users copy them from a batch script: ``--gres=gpu:a100:2``,
``#SBATCH --gpus-per-node=h100:4``, and a node's GRES as ``sinfo`` prints it. The option's
value is a GRES (``gpu:TYPE:COUNT``) or a ``[TYPE:]COUNT``, both of which the spec grammar
reads; the option itself says no more, nor do the sockets a node's GPUs sit by.

>>> slurm_option("--gres=gpu:a100:2")
'       gpu:a100:2'
>>> slurm_option("--partition=gpu --gres=gpu:a30")  # two options: left to the grammar
'--partition=gpu --gres=gpu:a30'
>>> slurm_option("gpu:h200:8(S:0-1)")  # a node's GRES as sinfo prints it
'gpu:h200:8       '
"""

from __future__ import annotations

import re

__all__ = ["slurm_option"]

#: One GPU option of sbatch/srun/salloc, alone (a directive's ``#SBATCH`` before it), its value
#: one word.
_OPTION = re.compile(
    r"\s*(?:#SBATCH\s+)?--(?:gres|gpus|gpus-per-node|gpus-per-task|gpus-per-socket)=(?=\S+\s*\Z)"
)


#: A node's GRES as ``sinfo`` and ``scontrol show node`` print it: ``gpu:h200:8(S:0-1)``, the
#: sockets the GPUs sit by (or, in use, ``(IDX:0-3)``, their indexes), after ``Gres=`` or not.
_NODE_GRES = re.compile(
    r"\s*(?P<key>(?:Gres|GresUsed)=)?gpu:[^\s():=]+(?::[0-9]+)?(?P<where>\((?:S|IDX):[0-9,\-]+\))\s*\Z"
)


def slurm_option(text: str) -> str:
    """``text`` with a Slurm GPU option's name blanked (same length, so positions in messages
    stay those given), or a node's GRES with its sockets or indexes blanked (``Gres=`` and
    ``(S:0-1)``: where its GPUs are, not how many), or ``text`` unchanged where it is neither."""
    found = _OPTION.match(text)
    if found is not None:
        return " " * found.end() + text[found.end() :]
    node = _NODE_GRES.match(text)
    if node is None:
        return text
    for part in ("key", "where"):
        if node[part]:
            start, end = node.span(part)
            text = text[:start] + " " * (end - start) + text[end:]
    return text
