"""Log-analysis and text-processing families: per-service level counts, access-log statistics and
word frequencies."""

from __future__ import annotations

import random
import re
from collections import Counter

from harnessx.envs.terminal.builtin.family import Family, Instance, Special, contradiction, file_check

SERVICES = ["billing", "auth", "search", "mailer", "gateway", "cron", "reports"]
LEVELS = ["DEBUG", "INFO", "INFO", "WARNING", "ERROR"]


def log_counts(text: str) -> dict[str, int]:
    counts = {"ERROR": 0, "WARNING": 0}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) > 1 and parts[1] in counts:
            counts[parts[1]] += 1
    return counts


class LogLevels(Family):
    name, category = "log-levels", "log analysis"
    primary, output, text_primary = "/app/logs", "/app/report.json", False

    def draw(self, rng: random.Random) -> dict:
        services = rng.sample(SERVICES, rng.randint(3, 4))
        logs = {}
        for i, svc in enumerate(services):
            levels = ["DEBUG", "INFO", "WARNING"] if i == 0 else LEVELS  # the first service logs no errors
            logs[svc] = [f"2024-05-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 "
                         f"{rng.choice(levels)} {svc}: event {rng.randint(1, 999)}" for _ in range(rng.randint(12, 30))]
        return {"logs": logs}

    def layout(self, params: dict) -> dict:
        return {f"{self.primary}/{svc}.log": "\n".join(lines) + "\n" for svc, lines in params["logs"].items()}

    def report(self, files: dict) -> dict:
        prefix = self.primary + "/"
        return {p[len(prefix):-4]: log_counts(t) for p, t in files.items() if p.startswith(prefix) and p.endswith(".log")}

    def checks(self, files: dict, params: dict) -> list[dict]:
        return [{"type": "json", "path": self.output, "value": self.report(files)}]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        report = self.report(inst.files)
        quiet = sorted(s for s, c in report.items() if c["ERROR"] == 0)
        if not quiet:
            return []
        noisy = {s: c for s, c in report.items() if c["ERROR"] > 0}
        return [contradiction("conflicting-scope", f"{quiet[0]} logged no errors, yet the report must both list "
                              "every service and only services with errors.", quiet[0],
                              " The report must list only services that logged at least one ERROR.",
                              [{"type": "json", "path": self.output, "value": noisy}])]


class AccessStats(Family):
    name, category = "access-stats", "log analysis"
    primary, output, text_primary = "/app/access.log", "/app/stats.json", True
    TIE_RULE = "; when several addresses tie, the smallest in plain string order"
    PATHS = ["/", "/login", "/api/items", "/static/app.js", "/health", "/api/cart"]

    def draw(self, rng: random.Random) -> dict:
        ips = [f"10.0.{rng.randint(0, 9)}.{rng.randint(1, 254)}" for _ in range(rng.randint(4, 6))]
        hits = [rng.choice(ips) for _ in range(rng.randint(25, 45))]
        return {"hits": hits, "tie_rule": self.TIE_RULE,
                "lines": [self.line(rng, ip, i) for i, ip in enumerate(hits)]}

    def line(self, rng: random.Random, ip: str, i: int) -> str:
        status = rng.choice([200, 200, 200, 304, 404, 500])
        return (f'{ip} - - [10/Oct/2024:13:{i // 60:02d}:{i % 60:02d} +0000] "GET {rng.choice(self.PATHS)} HTTP/1.1" '
                f"{status} {rng.randint(100, 9000)}")

    def layout(self, params: dict) -> dict:
        return {self.primary: "\n".join(params["lines"]) + "\n"}

    def stats(self, files: dict, pick=min) -> dict:
        ips, status = Counter(), Counter()
        for line in files[self.primary].splitlines():
            parts = line.split()
            if len(parts) >= 9:
                ips[parts[0]] += 1
                status[parts[8]] += 1
        best = max(ips.values())
        return {"requests": sum(ips.values()), "status": dict(status),
                "top_ip": pick(ip for ip, n in ips.items() if n == best)}

    def checks(self, files: dict, params: dict) -> list[dict]:
        return [{"type": "json", "path": self.output, "value": self.stats(files)}]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        counts = Counter(inst.params["hits"])
        top, best = counts.most_common(1)[0]
        rival = min((ip for ip in counts if ip != top), key=lambda ip: counts[ip])
        extra = [self.line(rng, rival, 900 + k) for k in range(best - counts[rival])]
        files = {self.primary: "\n".join(inst.params["lines"] + extra) + "\n"}
        tied = sorted(ip for ip, n in (counts + Counter({rival: len(extra)})).items() if n == best)
        return [Special("ambiguous", "tied-top", f"Addresses {', '.join(tied)} tie for the most requests and the "
                        "instruction gives no rule to choose between them.", [tied[0], tied[-1], "tie"],
                        params={"tie_rule": ""}, files=files,
                        other_reading=[{"type": "json", "path": self.output, "value": self.stats(files, pick=max)}])]


WORDS = ["river", "stone", "light", "cloud", "maple", "ember", "harbor", "quill", "meadow", "signal", "copper", "lantern"]
FILLER = ["a", "an", "of", "in", "on", "by"]


class WordFreq(Family):
    name, category = "word-freq", "text processing"
    primary, output, text_primary = "/app/corpus", "/app/top_words.txt", False
    TIE_RULE = " When two words have the same count, list them alphabetically."

    def draw(self, rng: random.Random) -> dict:
        n = rng.randint(3, 5)
        words = rng.sample(WORDS, n + 3)
        counts = {w: c for w, c in zip(words, sorted(rng.sample(range(4, 30), n + 3), reverse=True))}
        return {"n": n, "counts": counts, "tie_rule": self.TIE_RULE, "seed": rng.randint(0, 10**6)}

    def corpus(self, counts: dict[str, int], seed: int) -> dict:
        rng = random.Random(seed)
        tokens = [w for w, c in counts.items() for _ in range(c)]
        tokens += [rng.choice(FILLER) for _ in range(5)]
        rng.shuffle(tokens)
        tokens = [t.capitalize() if rng.random() < 0.2 else t for t in tokens]
        half = len(tokens) // 2
        return {f"{self.primary}/part1.txt": " ".join(tokens[:half]) + ".\n",
                f"{self.primary}/part2.txt": ", ".join(tokens[half:]) + "!\n"}

    def layout(self, params: dict) -> dict:
        return self.corpus(params["counts"], params["seed"])

    def top(self, files: dict, n: int, reverse_ties: bool = False) -> str:
        counts = Counter()
        for path, text in files.items():
            if path.startswith(self.primary + "/") and path.endswith(".txt"):
                counts.update(re.findall(r"[a-z]+", text.lower()))
        order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if reverse_ties:
            order = sorted(counts.items(), key=lambda kv: (-kv[1], [-ord(ch) for ch in kv[0]]))
        return "".join(f"{w} {c}\n" for w, c in order[:n])

    def checks(self, files: dict, params: dict) -> list[dict]:
        return [file_check(self.output, self.top(files, params["n"]))]

    def specials(self, inst: Instance, rng: random.Random) -> list[Special]:
        n = inst.params["n"]
        ranked = sorted(inst.params["counts"].items(), key=lambda kv: -kv[1])
        counts = dict(inst.params["counts"])
        counts[ranked[n][0]] = ranked[n - 1][1]  # the first word left out now ties with the last one kept
        files = self.corpus(counts, inst.params["seed"])
        a, b = sorted([ranked[n - 1][0], ranked[n][0]])
        return [Special("ambiguous", "tied-cutoff", f"'{a}' and '{b}' tie for place {n}, and with no tie rule the "
                        f"top {n} is not determined.", [a, b, "tie"], params={"tie_rule": ""}, files=files,
                        other_reading=[file_check(self.output, self.top(files, n, reverse_ties=True))])]

