"""The rule of a derived catalog figure: a small arithmetic expression, checked against its value.

A figure marked ``derived`` is computed from figures someone can read: numbers printed on its
source page (``3958 / 2``: a sparse rate halved), the figure's own ``sparse`` or ``per_device``
value, or the entry's other figures (``tflops.fp16 / 2``, ``memory_gb / devices``). The data file
writes that rule in the figure's ``formula``; :func:`evaluate` computes it and :func:`agrees`
says whether the stored value is that result, up to the rounding the value is written with.

Only ``+ - * /``, parentheses, numbers and those names are accepted: nothing is executed.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping

__all__ = ["FIGURE_NAMES", "agrees", "evaluate", "inputs", "names"]

#: Names a formula may use besides ``tflops.<dtype>``: the entry's figures, the figure's own
#: with-sparsity and per-device values, and the entry's devices per board.
FIGURE_NAMES: frozenset[str] = frozenset(
    {"memory_gb", "bandwidth_tbps", "tdp_w", "sparse", "per_device", "devices"}
)

_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _parse(formula: str) -> ast.expr:
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError as exc:
        problem = f"formula {formula!r} is not an arithmetic expression: {exc.msg}"
        raise ValueError(problem) from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "tflops"):
                raise ValueError(f"formula {formula!r}: only tflops.<dtype> may use a dot")
        elif isinstance(node, ast.Name):
            if node.id not in FIGURE_NAMES and node.id != "tflops":
                raise ValueError(
                    f"formula {formula!r}: unknown name {node.id!r}; expected one of "
                    f"{sorted(FIGURE_NAMES)} or tflops.<dtype>"
                )
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ValueError(f"formula {formula!r}: {node.value!r} is not a number")
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _OPS:
                raise ValueError(f"formula {formula!r}: only + - * / are allowed")
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, ast.USub):
                raise ValueError(f"formula {formula!r}: only unary minus is allowed")
        elif not isinstance(node, ast.Expression | ast.Load | ast.operator | ast.unaryop):
            raise ValueError(f"formula {formula!r}: {type(node).__name__} is not allowed")
    return tree.body


def names(formula: str) -> tuple[str, ...]:
    """The figure names ``formula`` uses (``tflops.fp16``, ``sparse``…), in order, once each.

    :raises ValueError: ``formula`` is not an expression of the accepted form.
    """
    found: list[str] = []
    for node in ast.walk(_parse(formula)):
        if isinstance(node, ast.Attribute):
            found.append(f"tflops.{node.attr}")
        elif isinstance(node, ast.Name) and node.id != "tflops":
            found.append(node.id)
    return tuple(dict.fromkeys(found))


def inputs(formula: str) -> tuple[float, ...]:
    """The numbers ``formula`` reads from its source (every literal but small whole rule
    constants such as the 2 of ``/ 2`` or the 64 of ``/ 64``), in order.

    :raises ValueError: ``formula`` is not an expression of the accepted form.
    """
    out: list[float] = []
    for node in ast.walk(_parse(formula)):
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, int) and 1 <= value <= 128:
                continue
            if isinstance(value, int | float):
                out.append(float(value))
    return tuple(out)


def evaluate(formula: str, values: Mapping[str, float]) -> float:
    """``formula`` computed with ``values`` for its names.

    :raises ValueError: ``formula`` is malformed, names a figure ``values`` lacks, or divides
        by zero.
    """

    def walk(node: ast.expr) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp):
            return -walk(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ValueError(f"formula {formula!r} divides by zero")
            return _OPS[type(node.op)](left, right)
        key = f"tflops.{node.attr}" if isinstance(node, ast.Attribute) else node.id  # type: ignore[attr-defined]
        if key not in values:
            raise ValueError(f"formula {formula!r} uses {key}, which this entry does not have")
        return float(values[key])

    return walk(_parse(formula))


def agrees(value: float, computed: float) -> bool:
    """Whether ``value`` is ``computed`` as a datasheet would write it: within half a unit of
    ``value``'s last written digit, or within 0.5 % (datasheets round to three digits)."""
    text = repr(float(value))
    decimals = 0 if text.endswith(".0") else len(text.partition(".")[2])
    slack = max(0.5 * 10.0**-decimals, 0.005 * abs(computed))
    return math.isfinite(computed) and abs(value - computed) <= slack + 1e-9
