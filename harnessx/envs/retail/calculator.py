"""The `calculate` tool: arithmetic over digits, + - * / ( ) . and spaces, rounded to 2 places.

Parsed with Python's own grammar (so syntax errors read as τ²'s do) and evaluated with Python's
operators (so division and overflow errors match too), without `eval`. The evaluation walks the
tree with an explicit stack, so a long flat sum or a long chain of signs costs no recursion:
anything τ²'s `eval` evaluates is evaluated, up to `MAX_DEPTH` levels of nesting (a fixed bound;
Python's own compiler, τ²'s `eval`, stops near 3,000 depending on the interpreter and the caller's
stack). `...` and `(1)(2)` fail as `eval` makes them fail (a float of an ellipsis, a call of a number). Deeper expressions, and those
too deep for the parser itself (e.g. 6000 unary minus signs), are a tool error returned to the
agent. Integer powers whose result would exceed `MAX_BITS` are refused instead of computed.
"""

from __future__ import annotations

import ast
import operator
import sys
import threading

ALLOWED = set("0123456789+-*/(). ")
MAX_BITS = 1_000_000
# nesting levels: a fixed bound below what CPython's parser reaches on 3.11 and 3.12 (about 3,000),
# so the largest flat sum (2,901 terms) and sign chain (2,900 signs) do not depend on the interpreter
MAX_DEPTH = 2900
TOO_COMPLEX = "expression too complex to evaluate"
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_LIMIT_LOCK = threading.Lock()


def calculate(expression: str) -> str:
    if not all(char in ALLOWED for char in expression):
        raise ValueError("Invalid characters in expression")
    try:
        tree = _parse(expression.lstrip(" "))
    except (MemoryError, RecursionError):
        # the agent's own input is too deeply nested for the parser: a tool error, not an environment failure
        raise ValueError(TOO_COMPLEX) from None
    return str(round(float(_evaluate(tree.body)), 2))


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _parse(source: str) -> ast.Expression:
    """Python's parser, with the recursion limit raised (bounded, under a lock, then restored) just
    enough for the AST of a `MAX_DEPTH`-deep expression: CPython builds the AST under a limit of 3x
    the recursion limit, counted from the caller's depth."""
    with _LIMIT_LOCK:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, _stack_depth() + MAX_DEPTH // 3 + 100))
        try:
            return compile(source, "<string>", "eval", ast.PyCF_ONLY_AST)
        finally:
            sys.setrecursionlimit(old)


def _evaluate(root: ast.AST) -> object:
    """Post-order over the tree with an explicit stack (left operand first, as Python evaluates)."""
    todo: list[tuple[ast.AST, int, bool]] = [(root, 1, False)]
    values: list[object] = []
    while todo:
        node, depth, ready = todo.pop()
        if ready:
            _apply(node, values)
            continue
        if isinstance(node, ast.Constant) and (isinstance(node.value, (int, float)) or node.value is Ellipsis):
            values.append(node.value)
            continue
        if depth > MAX_DEPTH:
            raise ValueError(TOO_COMPLEX)
        todo.append((node, depth, True))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            todo.append((node.operand, depth + 1, False))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            todo.extend([(node.right, depth + 1, False), (node.left, depth + 1, False)])
        elif isinstance(node, ast.Tuple):
            todo.extend((e, depth + 1, False) for e in reversed(node.elts))
        elif isinstance(node, ast.Call) and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            todo.extend((e, depth + 1, False) for e in reversed([node.func, *node.args]))
        else:
            raise TypeError(f"unsupported expression: {type(node).__name__}")
    return values.pop()


def _apply(node: ast.AST, values: list[object]) -> None:
    """Replace a node's operand values on the stack by its value (or raise as eval would)."""
    if isinstance(node, ast.UnaryOp):
        values.append(_UNARY[type(node.op)](values.pop()))
    elif isinstance(node, ast.BinOp):
        right, left = values.pop(), values.pop()
        if isinstance(node.op, ast.Pow) and _huge_power(left, right):
            raise OverflowError("exponent too large")
        values.append(_BINARY[type(node.op)](left, right))
    elif isinstance(node, ast.Call):  # `(1)(2)`: evaluated like eval, then not callable
        del values[len(values) - len(node.args):]
        raise TypeError(f"'{type(values.pop()).__name__}' object is not callable")
    else:  # a tuple
        n = len(node.elts)
        items = tuple(values[len(values) - n:]) if n else ()
        del values[len(values) - n:]
        values.append(items)


def _huge_power(base: object, exponent: object) -> bool:
    if not (isinstance(base, int) and isinstance(exponent, (int, float))) or abs(base) <= 1:
        return False
    return exponent > 0 and base.bit_length() * exponent > MAX_BITS
