"""The `calculate` tool: arithmetic over digits, + - * / ( ) . and spaces, rounded to 2 places.

Parsed with Python's own grammar (so syntax errors read as τ²'s do) and evaluated node by node
with Python's operators (so division and overflow errors match too), without `eval`. Integer
powers whose result would exceed `MAX_BITS` are refused instead of computed; an expression nested
too deeply for the parser (e.g. 6000 unary minus signs) is a tool error returned to the agent.
"""

from __future__ import annotations

import ast
import operator

ALLOWED = set("0123456789+-*/(). ")
MAX_BITS = 1_000_000
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def calculate(expression: str) -> str:
    if not all(char in ALLOWED for char in expression):
        raise ValueError("Invalid characters in expression")
    try:
        tree = compile(expression.lstrip(" "), "<string>", "eval", ast.PyCF_ONLY_AST)
        return str(round(float(_value(tree.body)), 2))
    except (MemoryError, RecursionError):
        # the agent's own input is too deeply nested for the parser: a tool error, not an environment failure
        raise ValueError("expression too complex to evaluate") from None


def _value(node: ast.AST) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and _huge_power(left, right):
            raise OverflowError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Tuple):
        return tuple(_value(e) for e in node.elts)
    raise TypeError(f"unsupported expression: {type(node).__name__}")


def _huge_power(base: object, exponent: object) -> bool:
    if not (isinstance(base, int) and isinstance(exponent, (int, float))) or abs(base) <= 1:
        return False
    return exponent > 0 and base.bit_length() * exponent > MAX_BITS
