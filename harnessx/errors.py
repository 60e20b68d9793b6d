"""Errors that reach the user as one clear message (file, field, value, expectation)."""


class HarnessXError(Exception):
    """Base class: the CLI prints the message and exits non-zero, without a traceback."""

    exit_code = 2  # bad input, or a model / store that cannot be used


class InputError(HarnessXError):
    """A file or argument the user gave is malformed."""

    def __init__(self, source: str, problem: str, expected: str | None = None):
        self.source, self.problem, self.expected = source, problem, expected
        msg = f"{source}: {problem}"
        if expected:
            msg += f" (expected {expected})"
        super().__init__(msg)


def one_of(names) -> str:
    """What an InputError expects of a value with a fixed set of choices: "one of a, b, c" (or "none" when
    there is no choice), the one way every "expected one of" list is printed."""
    names = [str(n) for n in names]
    return "one of " + ", ".join(names) if names else "none"


class NotLandedError(HarnessXError):
    """A command whose feature has not been built yet."""


class EnvironmentFailure(HarnessXError):
    """The environment (sandbox, task setup) failed: the episode is excluded, never scored."""


class AgentFault(HarnessXError):
    """Something the agent caused made the episode impossible to continue (a limit of the episode
    reached, a verifier step broken by the agent's changes): the episode ends and scores 0 with this
    cause named. Never an exclusion: the agent cannot remove its own failures from the denominator."""


class ModelCallError(HarnessXError):
    """A model call failed after retries (unreachable server, unknown model, bad key).

    `kind` classifies it (auth, connection, timeout, rate_limit, server, not_found, bad_request, ...)."""

    def __init__(self, message: str, kind: str = "provider", detail: str = ""):
        self.kind, self.detail = kind, detail or message  # detail: the provider's own error
        super().__init__(message)


class NothingScoredError(HarnessXError):
    """Every rollout of a command was excluded (model, environment or task failures): there is no
    result to report, so the command stops with the reasons instead of writing a report of nothing."""

    exit_code = 3
