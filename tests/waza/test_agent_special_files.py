"""The agent's file tools refuse special files and the task's timeout holds during a tool
call (issue 30, item 8): on main ``mkfifo p`` then ``read p`` blocked the run forever (still
blocked at 240 s with ``timeout_seconds: 20``)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import pytest
from scievals.llm.base import ModelSpec
from scievals.llm.settings import LLMSettings
from scievals.waza import session
from scievals.waza.executors.agent import Agent, AgentSettings, Workspace


def _tool(name, **arguments):
    return "```tool\n" + json.dumps({"tool": name, "arguments": arguments}) + "\n```"


def _agent(tmp_path, replies: dict[str, str], **settings) -> Agent:
    spec = ModelSpec(name="scripted", provider="mock", responses=replies)
    llm = LLMSettings(cache_dir=tmp_path / "cache", cache_mode="off")
    return Agent(spec, llm, AgentSettings(**settings), {})


def _in_thread(function, limit_s: float):
    """Run ``function`` in a daemon thread; fail (instead of hanging the suite) when it has
    not returned within ``limit_s``."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("value", function()), daemon=True)
    thread.start()
    thread.join(limit_s)
    assert not thread.is_alive(), f"still blocked after {limit_s} s"
    return box["value"]


def test_read_and_write_of_a_named_pipe_are_refused_at_once(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.mkfifo(workspace / "p")
    replies = {"c/turn0": _tool("read", path="p"), "c/turn1": _tool("write", path="p",
                                                                    content="x"),
               "c/turn2": _tool("read", path="."), "c/turn3": "done"}
    started = time.monotonic()
    run = _in_thread(lambda: _agent(tmp_path, replies).run("x", workspace, "c", 0, 20), 10)
    assert time.monotonic() - started < 10
    read, write, folder = session.digest(run.events).tool_calls
    assert read.success is False and "'p' is a named pipe, socket or device" in read.result["content"]
    assert write.success is False and "'p' is a named pipe, socket or device" in write.result["content"]
    assert folder.success is False and "is a folder (use list)" in folder.result["content"]
    assert run.error == ""  # the agent went on to its answer


def test_sockets_and_devices_are_refused(tmp_path):
    ws = Workspace(tmp_path, AgentSettings())
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(ValueError, match="named pipe, socket or device"):
            ws.read("s")
    finally:
        server.close()
    os.symlink("/dev/zero", tmp_path / "z")  # resolves outside: refused before opening
    with pytest.raises(ValueError, match="outside the workspace"):
        ws.read("z")


def test_regular_files_read_and_write_as_before(tmp_path):
    ws = Workspace(tmp_path, AgentSettings())
    assert ws.write("d/a.txt", "héllo\n") == "wrote 6 characters to d/a.txt"
    assert ws.read("d/a.txt") == "héllo\n"
    assert ws.write("d/a.txt", "x") and ws.read("d/a.txt") == "x"  # truncated, not appended


def test_task_timeout_holds_during_a_shell_command(tmp_path):
    # shell_timeout_s 30 but the task has 1 s: the command is stopped at the task's limit
    workspace = tmp_path / "ws"
    workspace.mkdir()
    replies = {"c/turn0": _tool("shell", command="sleep 20"), "c/turn1": "late"}
    started = time.monotonic()
    run = _in_thread(lambda: _agent(tmp_path, replies, shell_timeout_s=30).run(
        "x", workspace, "c", 0, timeout_s=1), 15)
    assert time.monotonic() - started < 8
    call = session.digest(run.events).tool_calls[0]
    assert call.success is False and "timed out after" in call.result["content"]
    assert run.error == "timed out after 1 s"
