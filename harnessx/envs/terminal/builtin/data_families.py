"""Data-wrangling families: CSV aggregation, JSON filtering, stock reconciliation, env merging,
template rendering and a small program inferred from examples."""

from __future__ import annotations

import csv
import io
import json
import random
import re
from decimal import Decimal

from harnessx.envs.terminal.builtin.family import Family, Instance, Special, contradiction, csv_text, file_check

REGIONS = ["north", "south", "east", "west", "central", "coast", "alpine"]
PRODUCTS = ["widget", "gadget", "sprocket", "gizmo", "bracket"]
NAMES = ["ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu", "max", "ned", "oz"]


def read_csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


class SalesTotals(Family):
    name, category = "sales-totals", "data wrangling"
    primary, output, text_primary = "/app/data/sales.csv", "/app/out/region_totals.csv", True

    def draw(self, rng: random.Random) -> dict:
        regions = rng.sample(REGIONS, rng.randint(3, 5))
        rows = [[f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}", rng.choice(regions), rng.choice(PRODUCTS),
                 rng.randint(1, 20), f"{rng.randint(100, 9999) / 100:.2f}"] for _ in range(rng.randint(25, 45))]
        return {"rows": rows}

    def layout(self, params: dict) -> dict:
        return {self.primary: csv_text([["date", "region", "product", "units", "unit_price"]] + params["rows"])}

    def totals(self, files: dict) -> dict[str, Decimal]:
        totals: dict[str, Decimal] = {}
        for row in read_csv(files[self.primary]):
            if row.get("unit_price") and row.get("units", "").isdigit():
                totals[row["region"]] = totals.get(row["region"], Decimal(0)) + int(row["units"]) * Decimal(row["unit_price"])
        return totals

    def checks(self, files: dict, params: dict) -> list[dict]:
        totals = self.totals(files)
        rows = [["region", "revenue"]] + [[r, f"{totals[r]:.2f}"] for r in sorted(totals)]
        return [{"type": "csv", "path": self.output, "rows": rows}]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        totals = self.totals(inst.files)
        by_revenue = sorted(totals, key=lambda r: -totals[r])
        if by_revenue == sorted(totals):
            return []
        rows = [["region", "revenue"]] + [[r, f"{totals[r]:.2f}"] for r in by_revenue]
        return [contradiction("conflicting-order", "The instruction demands rows sorted by region name and also "
                              "ordered by revenue, highest first; the two orders differ.", "revenue, highest first",
                              " The rows must be ordered by revenue, highest first, so the best region comes first.",
                              [{"type": "csv", "path": self.output, "rows": rows}])]


class UsersActive(Family):
    name, category = "users-active", "data wrangling"
    primary, output = "/app/users.json", "/app/active_users.csv"

    def draw(self, rng: random.Random) -> dict:
        ids = rng.sample(range(100, 999), rng.randint(10, 16))
        users = [{"id": i, "name": rng.choice(NAMES), "active": rng.random() < 0.7,
                  "last_login": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"} for i in ids]
        for u in users:
            u["email"] = f"{u['name']}{u['id']}@example.org"
        return {"users": users, "cutoff": f"2024-{rng.randint(4, 8):02d}-01"}

    def layout(self, params: dict) -> dict:
        return {self.primary: json.dumps(params["users"], indent=2) + "\n"}

    def selected(self, files: dict, params: dict) -> list[dict]:
        users = json.loads(files[self.primary])
        return [u for u in users if u["active"] and u["last_login"] >= params["cutoff"]]

    def checks(self, files: dict, params: dict) -> list[dict]:
        rows = [[str(u["id"]), u["email"]] for u in sorted(self.selected(files, params), key=lambda u: u["id"])]
        return [{"type": "csv", "path": self.output, "rows": [["id", "email"]] + rows}]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        chosen = self.selected(inst.files, inst.params)
        recent = sorted(chosen, key=lambda u: (u["last_login"], u["id"]), reverse=True)
        if len(chosen) < 2 or recent == sorted(chosen, key=lambda u: u["id"]):
            return []
        rows = [["id", "email"]] + [[str(u["id"]), u["email"]] for u in recent]
        return [contradiction("conflicting-order", "Rows must be sorted by id and also start with the most recently "
                              "active user; the orders differ.", "most recent",
                              " The most recently active user must come first, then the next most recent, and so on.",
                              [{"type": "csv", "path": self.output, "rows": rows}])]


class StockReconcile(Family):
    name, category = "stock-reconcile", "data wrangling"
    primary, output, text_primary = "/app/inventory/orders.csv", "/app/inventory/remaining.csv", True

    def draw(self, rng: random.Random) -> dict:
        skus = sorted(f"SKU-{rng.randint(1000, 9999)}" for _ in range(rng.randint(5, 8)))
        stock = {s: rng.randint(20, 60) for s in skus}
        orders = [[f"O{5000 + i}", rng.choice(skus), rng.randint(1, 6)] for i in range(rng.randint(10, 18))]
        return {"stock": stock, "orders": orders}

    def layout(self, params: dict) -> dict:
        return {"/app/inventory/stock.csv": csv_text([["sku", "qty"]] + [[s, q] for s, q in params["stock"].items()]),
                self.primary: csv_text([["order_id", "sku", "qty"]] + params["orders"])}

    def remaining(self, files: dict) -> dict[str, int]:
        stock = {r["sku"]: int(r["qty"]) for r in read_csv(files["/app/inventory/stock.csv"])}
        for row in read_csv(files[self.primary]):
            if row.get("sku") in stock and (row.get("qty") or "").isdigit():
                stock[row["sku"]] -= int(row["qty"])
        return stock

    def checks(self, files: dict, params: dict) -> list[dict]:
        left = self.remaining(files)
        return [{"type": "csv", "path": self.output, "rows": [["sku", "qty"]] + [[s, str(left[s])] for s in sorted(left)]}]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        sku = sorted(inst.params["stock"])[0]
        orders = inst.params["orders"] + [["O9999", sku, inst.params["stock"][sku] + 5]]
        files = dict(inst.files, **{self.primary: csv_text([["order_id", "sku", "qty"]] + orders)})
        left = self.remaining(files)
        clamped = [["sku", "qty"]] + [[s, str(max(0, left[s]))] for s in sorted(left)]
        return [Special("ambiguous", "negative-stock", f"{sku} is oversold: its exact remaining quantity is negative, "
                        "which the instruction also forbids.", [sku, "negative"],
                        extra=" Quantities in remaining.csv can never be negative.", files=files,
                        other_reading=[{"type": "csv", "path": self.output, "rows": clamped}])]


def env_text(pairs: list[tuple[str, str]], comment: str) -> str:
    return f"# {comment}\n" + "".join(f"{k}={v}\n" for k, v in pairs)


def env_values(text: str) -> dict[str, str]:
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key] = value
    return values


class EnvMerge(Family):
    name, category = "env-merge", "config repair"
    primary, output, text_primary = "/app/env/overrides.env", "/app/env/final.env", True
    KEYS = ["DB_HOST", "DB_PORT", "CACHE_TTL", "LOG_LEVEL", "WORKERS", "TIMEOUT", "REGION", "FEATURE_X", "API_URL"]

    def draw(self, rng: random.Random) -> dict:
        keys = rng.sample(self.KEYS, 7)
        defaults = [(k, f"d{rng.randint(1, 99)}") for k in keys[:5]]
        overrides = [(k, f"o{rng.randint(100, 999)}") for k in keys[2:4] + keys[5:]]
        return {"defaults": defaults, "overrides": overrides}

    def layout(self, params: dict) -> dict:
        return {"/app/env/defaults.env": env_text(params["defaults"], "defaults"),
                self.primary: env_text(params["overrides"], "site overrides")}

    def checks(self, files: dict, params: dict) -> list[dict]:
        merged = env_values(files["/app/env/defaults.env"])
        merged.update(env_values(files[self.primary]))
        return [file_check(self.output, "".join(f"{k}={merged[k]}\n" for k in sorted(merged)))]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        defaults = env_values(inst.files["/app/env/defaults.env"])
        merged = dict(env_values(inst.files[self.primary]), **defaults)
        key = next(k for k, _ in inst.params["overrides"] if k in defaults)
        return [contradiction("authority-conflict", f"{key} is set in both files with different values, and the "
                              "instruction says both that overrides win and that defaults must not change.", key,
                              " The values in defaults.env are authoritative: the merged file must never change a "
                              "value that defaults.env sets.",
                              [file_check(self.output, "".join(f"{k}={merged[k]}\n" for k in sorted(merged)))])]


class TemplateRender(Family):
    name, category = "template-render", "text processing"
    primary, output, text_primary = "/app/templates/values.json", "/app/letter_rendered.txt", True
    FIELDS = {"customer": ["Ms Rivera", "Mr Okafor", "Dr Lindqvist"], "product": ["the X200 router", "a Model 7 kettle"],
              "ticket": ["#4411", "#9083", "#1270"], "agent": ["Sam", "Noor", "Jules"], "date": ["12 March", "3 June"]}

    def draw(self, rng: random.Random) -> dict:
        return {"values": {k: rng.choice(v) for k, v in self.FIELDS.items()}}

    def layout(self, params: dict) -> dict:
        letter = ("Dear [[customer]],\n\nThank you for contacting us about [[product]] (ticket [[ticket]]).\n"
                  "A replacement will ship on [[date]].\n\nKind regards,\n[[agent]]\n")
        return {"/app/templates/letter.txt": letter, self.primary: json.dumps(params["values"], indent=2) + "\n"}

    def rendered(self, files: dict, missing: str = "keep") -> str:
        try:
            values = json.loads(files[self.primary])
        except json.JSONDecodeError:
            values = {}
        return re.sub(r"\[\[(\w+)\]\]", lambda m: values.get(m.group(1), m.group(0) if missing == "keep" else ""),
                      files["/app/templates/letter.txt"])

    def checks(self, files: dict, params: dict) -> list[dict]:
        return [file_check(self.output, self.rendered(files))]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        values = dict(inst.params["values"])
        gone = rng.choice(sorted(values))
        del values[gone]
        files = dict(inst.files, **{self.primary: json.dumps(values, indent=2) + "\n"})
        return [Special("ambiguous", "missing-value", f"values.json has no value for the placeholder [[{gone}]], and the "
                        "instruction does not say what to put there.", [gone, "placeholder"], files=files,
                        other_reading=[file_check(self.output, self.rendered(files, missing="blank"))])]


def shift_text(text: str, shift: int) -> str:
    out = []
    for ch in text:
        if ch.isalpha() and ch.isascii():
            base = ord("a") if ch.islower() else ord("A")
            out.append(chr((ord(ch) - base + shift) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)


class PyFunction(Family):
    name, category = "py-function", "small programs"
    primary, output = "/app/examples.txt", "/app/solution.py"
    WORDS = ["Hello, World!", "abc xyz", "Terminal Bench 2", "zebra-Quiz", "Shift me (please)", "Mixed CASE text"]

    def draw(self, rng: random.Random) -> dict:
        return {"shift": rng.randint(1, 25), "func": rng.choice(["encode", "rotate", "cipher", "scramble"]),
                "hidden": rng.sample(["Python 3.11", "Zz Yy Xx", "sandbox @ /app", "The quick brown fox"], 3)}

    def layout(self, params: dict) -> dict:
        lines = [f"{w} -> {shift_text(w, params['shift'])}" for w in self.WORDS[:4]]
        return {self.primary: "\n".join(lines) + "\n"}

    def run_checks(self, params: dict, shift: int) -> list[dict]:
        func = params["func"]
        return [{"type": "run", "argv": ["python3", "-c", f"from solution import {func}; print({func}({s!r}))"],
                 "stdout": shift_text(s, shift)} for s in params["hidden"]]

    def checks(self, files: dict, params: dict) -> list[dict]:
        return self.run_checks(params, params["shift"])

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        other = rng.choice([s for s in range(1, 26) if s != inst.params["shift"]])
        return [contradiction("conflicting-shift", f"The instruction fixes a shift of {other}, but the examples use "
                              f"a shift of {inst.params['shift']}.", "shift", f" Use a shift of exactly {other} places.",
                              self.run_checks(inst.params, other))]
