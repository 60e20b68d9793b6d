"""One shell per episode: `cd` and `export` persist between `bash` calls; output that imitates the
end-of-command protocol (even an earlier command's token) cannot end a command; a timeout interrupts
the command and the shell goes on (or is restarted, and says so); `exit` is reported and the next
call gets a fresh shell; nothing the agent started survives the episode, its cancellation included;
trajectories keep each command and its output exactly; the verifier never runs in the agent's shell;
and the sandbox's isolation holds inside the persistent shell."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from harnessx.agent.runtime import run_rollout
from harnessx.envs.base import AbandonSpec
from harnessx.envs.terminal import shell as shell_mod
from harnessx.envs.terminal.env import TerminalEnv
from harnessx.envs.terminal.loader import load_spec, to_task
from harnessx.envs.terminal.sandbox import make_sandbox
from harnessx.envs.terminal.shell import Capture, ShellSession
from harnessx.envs.terminal.tools import STREAM_LIMIT
from harnessx.harness import load_preset
from harnessx.models import ModelClient
from harnessx.models.providers import register_script
from harnessx.tasks import ToolCall
from test_terminal_env import make_task
from test_terminal_sandbox import (  # noqa: F401
    assert_escapes_fail,
    available,
    docker_or_skip,
    host_server,
    launched_ignoring_interrupts,
    layout,
)

pytestmark = pytest.mark.requires("sandbox")


def backends():
    params = [pytest.param(name) for name in available()]
    params.append(pytest.param("docker", marks=pytest.mark.docker))
    return params


@pytest.fixture(params=backends())
def session(request, tmp_path):
    box = docker_or_skip() if request.param == "docker" else make_sandbox(request.param)
    box.start(layout(tmp_path))
    sh = ShellSession(box, "/app", timeout=60)
    yield sh
    sh.close()
    box.stop()


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds `marker` (sandboxed processes are host processes too)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


# Stragglers sleep STRAGGLER_S: a leaked one is still alive for that long, so waiting for them to start
# or to be gone up to half of it tells a leak from a slow machine without a clock of its own.
STRAGGLER_S = 300


def wait_gone(marker: str) -> list[int]:
    return wait_until(lambda: processes_with(marker), 0, gone=True)


def start_stragglers(run, marker: str) -> None:
    """A background job, a daemonised (setsid, nohup) one and a grandchild, each named `marker`."""
    result = run(f"(exec -a {marker}-bg sleep {STRAGGLER_S}) & "
                 f"setsid nohup bash -c 'exec -a {marker}-daemon sleep {STRAGGLER_S}' >/dev/null 2>&1 & "
                 f"bash -c '(exec -a {marker}-grandchild sleep {STRAGGLER_S}) & wait' & echo started")
    assert "started" in result.stdout
    assert len(wait_until(lambda: processes_with(marker), 3)) >= 3, "the stragglers did not start"


def wait_until(probe, want: int, gone: bool = False) -> list:
    """Poll `probe` until it finds `want` items or more (`gone`: until it finds none); what it found
    last. Bounded by half a straggler's life: a process that should have started or gone and has not
    by then is still there, however loaded the machine is."""
    import time

    started = time.monotonic()
    value = probe()
    while (value if gone else len(value) < want) and time.monotonic() - started < STRAGGLER_S / 2:
        time.sleep(0.05)
        value = probe()
    return value


# --- the session, on every backend -------------------------------------------------------------
def test_cwd_env_functions_and_jobs_persist(session):
    first = session.run("mkdir -p /app/work && cd /app/work && export GREETING='hi there'; greet() { echo \"$1!\"; }; "
                        "sleep 30 & echo $! > /tmp/job.pid", 30)
    assert first.exit_code == 0 and not first.notes
    second = session.run("pwd; echo \"$GREETING\"; greet you; kill -0 $(cat /tmp/job.pid) && echo job-alive", 30)
    assert second.stdout == "/app/work\nhi there\nyou!\njob-alive\n" and second.exit_code == 0
    assert session.starts == 1


def test_exit_codes_and_streams_are_exact(session):
    result = session.run("printf 'no newline'; printf 'e1\\ne2' >&2; false", 30)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "no newline", "e1\ne2")
    assert session.run("(exit 7)", 30).exit_code == 7  # a subshell's exit is just a status
    text = "tab\t'quote' \"dq\" $HOME `x` \\ % ünïcode\n\nblank lines\n"
    assert session.run(f"cat <<'EOF'\n{text}EOF", 30).stdout == text


@pytest.mark.parametrize("broken", ['echo "unterminated', "if true; then", "echo $(ls", "fi", "cat <<EOF\nabc"])
def test_a_syntax_error_is_the_commands_not_the_shells(session, broken):
    session.run("export KEEP=1", 30)
    result = session.run(broken, 30)
    assert not result.notes, f"{broken!r} ended the shell: {result.stderr}"
    assert session.run("echo $KEEP", 30).stdout == "1\n" and session.starts == 1


def test_stdin_is_empty_and_cannot_eat_the_protocol(session):
    result = session.run("cat; read -r line; echo \"read:$? [$line]\"", 30)
    assert result.stdout == "read:1 []\n"
    assert session.run("echo still-here", 30).stdout == "still-here\n"


def test_imitated_and_replayed_tokens_do_not_end_a_command(session, monkeypatch):
    tokens = []
    real = shell_mod.command_block
    monkeypatch.setattr(shell_mod, "command_block", lambda command, token: tokens.append(token) or real(command, token))
    session.run("echo one", 30)
    old = tokens[-1]  # the previous command's token, now known to the "agent"
    spoof = (f"printf '%s 0\\n' {old}; printf '%s\\n' {old} >&2; echo 'HX_END_{old}'; "
             f"sleep 0.5; echo real-end; exit_code_is=5; (exit $exit_code_is)")
    result = session.run(spoof, 30)
    assert result.exit_code == 5 and result.stdout == f"{old} 0\nHX_END_{old}\nreal-end\n"
    assert result.stderr == f"{old}\n"
    # a here-document line equal to an old delimiter does not end the command text either
    heredoc = session.run(f"cat <<'X'\nHX_END_{old}\nX\necho after", 30)
    assert heredoc.stdout == f"HX_END_{old}\nafter\n" and heredoc.exit_code == 0


def test_redirecting_the_shells_own_output_does_not_hang_it(session):
    result = session.run("exec 3>&1 >/tmp/log.txt; echo hidden", 30)
    assert result.exit_code == 0 and result.stdout == "" and not result.timed_out  # stdout went to the file
    assert session.run("exec >&3; cat /tmp/log.txt", 30).stdout == "hidden\n"


def test_timeout_interrupts_the_command_and_keeps_the_shell(session):
    session.run("cd /tmp && export KEEP=1", 30)
    result = session.run("echo before; python3 -c 'import time; time.sleep(60)'; echo after-interrupt", 1)
    assert result.timed_out and result.exit_code == 124 and "before" in result.stdout
    assert "shell was kept" in result.notes[0] and result.duration_s < 60  # the sleep did not run its 60 s
    nxt = session.run("pwd; echo $KEEP", 30)
    assert nxt.stdout == "/tmp\n1\n" and not nxt.notes and session.starts == 1


def test_a_timeout_interrupts_even_when_started_ignoring_interrupts(launched_ignoring_interrupts, session):
    """Started by `harnessx ... &` from a script, the shell inherited an ignored SIGINT: no timeout
    could interrupt a command, the shell was restarted and its state lost, silently. (The ignore is
    requested first, so it is in place before the session's sandbox starts.)"""
    session.run("cd /tmp && export KEEP=1", 30)
    result = session.run("sleep 60", 1)
    assert result.timed_out and "shell was kept" in result.notes[0], result.notes
    assert session.run("pwd; echo $KEEP", 30).stdout == "/tmp\n1\n" and session.starts == 1


def test_a_timeout_that_ends_the_shell_says_both(session):
    result = session.run("trap - INT; sleep 60", 1)  # the shell itself now dies of the interrupt
    assert result.timed_out and result.exit_code == 124
    assert "interrupted after the 1s timeout" in result.notes[0] and "shell ended" in result.notes[1]
    assert session.run("echo ok", 30).stdout == "ok\n"


def test_a_command_deaf_to_interrupt_gets_a_restarted_shell(session):
    session.run("cd /tmp && export KEEP=1", 30)
    result = session.run("trap '' INT; echo looping; while :; do :; done", 1)
    assert result.timed_out and result.exit_code == 124 and "looping" in result.stdout
    assert "shell was restarted" in result.notes[0]
    nxt = session.run("pwd; echo \"[$KEEP]\"", 30)
    assert nxt.stdout == "/app\n[]\n" and nxt.exit_code == 0 and session.starts == 2


def test_exit_is_reported_and_the_next_call_gets_a_fresh_shell(session):
    session.run("cd /tmp && export KEEP=1", 30)
    result = session.run("echo bye; exit 3", 30)
    assert result.exit_code == 3 and result.stdout == "bye\n" and "shell ended (exit status 3)" in result.notes[0]
    nxt = session.run("pwd; echo \"[$KEEP]\"", 30)
    assert nxt.stdout == "/app\n[]\n" and "fresh shell in /app" in nxt.notes[0] and "exit status 3" in nxt.notes[0]
    assert not session.run("true", 30).notes  # only the first call after the exit says so
    held = session.run("sleep 60 & exit 4", 30)  # a background job still holds the shell's stdout
    assert held.exit_code == 4 and not held.timed_out and held.duration_s < 60 and "shell ended" in held.notes[0]
    errexit = session.run("set -e; false; echo unreachable", 30)
    assert errexit.exit_code == 1 and "unreachable" not in errexit.stdout and "shell ended" in errexit.notes[-1]


def test_a_background_jobs_later_output_reaches_the_next_call(session):
    assert session.run("(sleep 0.3; echo from-bg) &", 30).stdout == ""
    assert session.run("sleep 1; echo next", 30).stdout == "from-bg\nnext\n"


def test_options_persist_and_errexit_ends_the_shell_only_on_a_failure(session):
    assert session.run("set -eu -o pipefail; export KEEP=1", 30).exit_code == 0
    assert session.run("echo $KEEP; [[ $- == *e* ]] && echo errexit-on", 30).stdout == "1\nerrexit-on\n"
    result = session.run("false; echo unreachable", 30)
    assert result.exit_code == 1 and result.stdout == "" and "shell ended (exit status 1)" in result.notes[0]


def test_functions_named_like_the_protocols_builtins_change_nothing(session):
    session.run("read() { :; }; eval() { :; }; printf() { :; }; set() { :; }; trap() { :; }; unset() { :; }", 30)
    result = session.run("command echo ran; exit_status=3; (exit $exit_status)", 30)
    assert (result.exit_code, result.stdout, result.notes) == (3, "ran\n", ())


def test_xtrace_does_not_leak_the_protocol(session):
    traced = session.run("set -x; echo traced", 30)
    assert "traced" in traced.stdout and "HX_END" not in traced.stderr and "__hx" not in traced.stderr
    assert session.run("echo plain", 30).stderr == ""  # xtrace was switched off after the command


def test_close_leaves_no_process_behind(session):
    marker = f"hxshell-{uuid.uuid4().hex[:10]}"
    start_stragglers(lambda c: session.run(c, 30), marker)
    session.close()
    assert wait_gone(marker) == [], "processes started in the shell outlived it"


def test_isolation_holds_inside_the_shell(session, tmp_path, host_server):
    port, hits = host_server

    class ShellRunner:  # the escape probes, sent through the persistent shell
        def run(self, command, timeout):
            return session.run(command, timeout)

    assert_escapes_fail(ShellRunner(), tmp_path, port, hits)
    assert session.run("grep CapEff /proc/self/status", 30).stdout.split()[-1] == "0000000000000000"


def test_capture_finds_a_token_split_across_reads_and_bounds_memory():
    token = b"f" * 32
    cap = Capture(token, limit=64)
    for byte in b"x" * 200 + token + b" 9\nlater":
        cap.add(bytes([byte]))
    assert cap.done and cap.number == 9 and cap.after == b"later"
    assert len(cap.head) == 32 and len(cap.tail) == 32 and cap.dropped == 136
    assert "[... 136 bytes dropped ...]" in cap.text()


# --- the environment ----------------------------------------------------------------------------
def bash(command: str, timeout: float | None = None) -> ToolCall:
    args = {"command": command} | ({"timeout": timeout} if timeout else {})
    return ToolCall(name="bash", arguments=args)


async def episode(task, calls, sandbox=None):
    env = TerminalEnv(sandbox)
    try:
        await env.reset(task, AbandonSpec(mode="file"))
        outs = [await env.execute(call) for call in calls]
        return outs, await env.verify()
    finally:
        await env.cleanup()


def test_env_bash_calls_share_a_shell_and_file_tools_stay_relative_to_app(tmp_path):
    task = to_task(load_spec(make_task(tmp_path)))
    outs, reward = asyncio.run(episode(task, [
        bash("mkdir -p sub && cd sub && export ANSWER=42"),
        ToolCall(name="write_file", arguments={"path": "note.txt", "content": "n\n"}),  # /app/note.txt
        bash("pwd; ls /app/note.txt; echo $ANSWER > /app/answer.txt"),
        bash("yes 0123456789 | head -c 20000"),
        bash("sleep 30", timeout=1),
        bash("pwd"),
        bash("echo a\x00b"),
    ]))
    assert "/app/sub\n/app/note.txt" in outs[2].observation and reward == 1.0
    assert "characters truncated" in outs[3].observation and len(outs[3].observation) < STREAM_LIMIT + 200
    assert "exit_code: 124" in outs[4].observation and "shell was kept" in outs[4].observation and outs[4].error
    assert "/app/sub" in outs[5].observation
    assert outs[6].error and "NUL" in outs[6].observation


def test_verifier_runs_in_its_own_process_not_the_agents_shell(tmp_path):
    task = to_task(load_spec(make_task(tmp_path)))
    # if the verifier ran in this shell, its `python3` would be this function and the nop would "pass"
    sabotage = [bash("python3() { return 0; }; export PYTHONPATH=/nowhere PYTEST_ADDOPTS=--collect-only; cd /tmp")]
    assert asyncio.run(episode(task, sabotage))[1] == 0.0
    assert asyncio.run(episode(task, sabotage + [bash("echo 42 > /app/answer.txt")]))[1] == 1.0


def agent_script(commands):
    def script(messages, tools, metadata):
        done = sum(m["role"] == "tool" for m in messages)
        if done < len(commands):
            return {"content": "", "tool_calls": [{"name": "bash", "arguments": {"command": commands[done]}}]}
        return {"content": "Done."}
    return script


def test_trajectory_records_each_command_and_its_output_exactly(tmp_path):
    task = to_task(load_spec(make_task(tmp_path)))
    commands = ["cd /tmp && export X='a  b'", "printf '%s|' \"$X\" \"$(pwd)\"; printf 'tail' >&2", "echo 42 > /app/answer.txt"]
    model = ModelClient(register_script("terminal-shell-exact", agent_script(commands)))
    result, traj = asyncio.run(run_rollout(load_preset("A1"), task, TerminalEnv(), model, seed=0))
    calls = [e.data for e in traj.of_kind("tool_call")]
    results = [e.data["content"] for e in traj.of_kind("tool_result")]
    assert [c["arguments"]["command"] for c in calls] == commands
    assert results[1] == "exit_code: 0\nstdout:\na  b|/tmp|\nstderr:\ntail"
    assert results[0] == "exit_code: 0\nstdout:\n" and result.reward == 1.0
    traj.verify()


def test_episode_end_and_cancellation_leave_no_process(tmp_path):
    task = to_task(load_spec(make_task(tmp_path)))
    marker = f"hxepisode-{uuid.uuid4().hex[:10]}"

    async def ended():
        env = TerminalEnv()
        await env.reset(task, AbandonSpec(mode="file"))
        start_stragglers(lambda c: env.shell.run(c, 30), marker)
        await env.cleanup()

    asyncio.run(ended())
    assert wait_gone(marker) == [], "processes outlived the episode"

    cancel_marker = f"hxcancel-{uuid.uuid4().hex[:10]}"
    holder = {}

    def script(messages, tools, metadata):
        if not any(m["role"] == "tool" for m in messages):
            return {"content": "", "tool_calls": [{"name": "bash", "arguments": {
                "command": f"setsid nohup bash -c 'exec -a {cancel_marker} sleep {STRAGGLER_S}' >/dev/null 2>&1 "
                           "& echo started"}}]}
        holder["loop"].call_soon_threadsafe(holder["task"].cancel)  # cancel mid-episode, as a shutdown would
        return {"content": "", "tool_calls": [{"name": "bash", "arguments": {"command": "echo next"}}]}

    model = ModelClient(register_script("terminal-shell-cancel", script))

    async def cancelled():
        holder["loop"] = asyncio.get_running_loop()
        holder["task"] = asyncio.current_task()
        await run_rollout(load_preset("A1"), task, TerminalEnv(), model, seed=0)

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(cancelled())
    assert wait_gone(cancel_marker) == [], "processes outlived the cancelled episode"


@pytest.mark.docker
def test_docker_env_shell_persists_and_cleans_up(tmp_path):
    docker_or_skip()
    task = to_task(load_spec(make_task(tmp_path)))
    outs, reward = asyncio.run(episode(task, [bash("cd /tmp && export A=42"), bash("pwd; echo $A > /app/answer.txt")],
                                       sandbox="docker"))
    assert "/tmp" in outs[1].observation and reward == 1.0
