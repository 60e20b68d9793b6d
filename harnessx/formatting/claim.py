"""The certified claim as text and as metrics, read from its JSON (`claim.json`, the summary's `claim`).

Below the search so that everything that prints a claim (the CLI, the report, the viewer, MLflow)
reads it without importing the search that computed it (and the model layer with it)."""

from __future__ import annotations


def claim_line(claim: dict | None) -> str:
    """The claim in one line, as the summary, export, report and viewer print it."""
    if not claim:
        return "claim: none recorded for this run (not certified)"
    status = claim.get("status", "not certified")
    if claim.get("difference") is None:
        return f"claim: {claim.get('reason') or status}"
    pp = claim.get("unit") == "pp"
    fmt = (lambda v: f"{100 * v:+.1f} pp") if pp else (lambda v: f"{v:+.3f}")
    level = (lambda v: f"{100 * v:.1f}%") if pp else (lambda v: f"{v:.3f}")
    lo, hi = claim["ci"]
    return (f"claim: {status.upper() if claim.get('certified') else status} on the {claim['split']} split: "
            f"selected − R0 {claim['objective']} {fmt(claim['difference'])} "
            f"[{100 * claim['ci_level']:.0f}% CI {fmt(lo).removesuffix(' pp')}, {fmt(hi)}], one-sided p "
            f"{p_text(claim['p_value'])} {'<=' if claim.get('certified') else '>'} alpha {claim['alpha']:g}; "
            f"R0 {level(claim['r0_score'])}, selected {level(claim['selected_score'])}; n={claim['valid_n']} "
            f"valid pairs of {claim['n_pairs']} ({claim['valid_tasks']} tasks x {len(claim['seeds'])} seed(s), "
            f"{claim['excluded_pairs']} excluded)")


def p_text(p: float) -> str:
    return f"{p:.4f}" if p >= 0.001 else f"{p:.1e}"


def claim_metrics(claim: dict) -> dict[str, float | None]:
    """The claim's figures as MLflow parent-run metrics."""
    return {"claim_certified": float(bool(claim.get("certified"))), "claim_difference": claim.get("difference"),
            "claim_ci_low": (claim.get("ci") or [None])[0], "claim_ci_high": (claim.get("ci") or [None, None])[1],
            "claim_p_value": claim.get("p_value"), "claim_alpha": claim.get("alpha"),
            "claim_r0_score": claim.get("r0_score"), "claim_selected_score": claim.get("selected_score"),
            "claim_valid_n": claim.get("valid_n"), "claim_rollouts": claim.get("rollouts")}
