"""One episode's view of a retail database: a shared, never-mutated base plus private copies.

A record is copied on its first write, so a fresh episode costs nothing however large the base.
Patches (dotted-path edits made when a blocked variant is built) are applied the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from harnessx.envs.retail.schema import TABLES, Order, Product, RetailDB, User

Dump = dict[str, dict[str, dict[str, Any]]]


class Patch(BaseModel):
    """Set `path` (dot-separated keys or list indices) of one record to `value`."""

    table: str
    id: str
    path: str
    value: Any


class Store:
    def __init__(self, base: RetailDB, patches: list[Patch] | list[dict] = ()):
        self.base = base
        self._own: dict[str, dict[str, Any]] = {table: {} for table in TABLES}
        for patch in patches:
            self.apply(Patch.model_validate(patch) if isinstance(patch, dict) else patch)
        self._initial = self.diff_from_base()

    # --- reads ---------------------------------------------------------------------------------
    def _table(self, table: str) -> dict[str, Any]:
        return getattr(self.base, table)

    def get(self, table: str, key: Any) -> Any:
        if not isinstance(key, str):
            return None
        own = self._own[table]
        return own[key] if key in own else self._table(table).get(key)

    def order(self, key: Any) -> Order | None:
        return self.get("orders", key)

    def user(self, key: Any) -> User | None:
        return self.get("users", key)

    def product(self, key: Any) -> Product | None:
        return self.get("products", key)

    def records(self, table: str) -> Iterator[Any]:
        """All records of a table in the base's order, own copies substituted."""
        own = self._own[table]
        for key, record in self._table(table).items():
            yield own.get(key, record)

    # --- writes --------------------------------------------------------------------------------
    def edit(self, table: str, key: str) -> Any:
        """The writable copy of a record (made on first use)."""
        own = self._own[table]
        if key not in own:
            own[key] = self._table(table)[key].model_copy(deep=True)
        return own[key]

    def apply(self, patch: Patch) -> None:
        if patch.table not in TABLES or patch.id not in self._table(patch.table):
            raise KeyError(f"patch target {patch.table}/{patch.id} does not exist")
        data = self.get(patch.table, patch.id).model_dump(mode="json")
        *parents, last = patch.path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = patch.value
        else:
            node[last] = patch.value
        self._own[patch.table][patch.id] = TABLES[patch.table].model_validate(data)

    # --- comparison ----------------------------------------------------------------------------
    def diff_from_base(self) -> Dump:
        """Records that differ from the base, as JSON dumps."""
        out: Dump = {table: {} for table in TABLES}
        for table, own in self._own.items():
            base = self._table(table)
            for key, record in own.items():
                dump = record.model_dump(mode="json")
                if dump != base[key].model_dump(mode="json"):
                    out[table][key] = dump
        return out

    def changed(self) -> bool:
        """Whether the database differs from its state at the start of the episode."""
        return self.diff_from_base() != self._initial

    def same_as(self, other: "Store") -> bool:
        return self.diff_from_base() == other.diff_from_base()
