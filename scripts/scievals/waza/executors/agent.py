"""The ``llm`` executor (:class:`AgentExecutor`): an agent loop through the LLM layer in the
run's workspace.

The LLM layer is text in, text out, so tools are called with fenced blocks::

    ```tool
    {"tool": "read", "arguments": {"path": "factorial.py"}}
    ```

A reply without a tool block is the final answer. Every turn is one cached request
(the whole conversation is the cache key), so a re-run costs no request. The loop
records Copilot-shaped session events (``assistant.message``, ``assistant.usage``,
``tool.execution_start``/``complete``, ``skill.invoked``) so every grader works on
it exactly as on a waza session.

Tools: ``read``, ``write``, ``list`` (paths inside the workspace only), ``shell``
(in the workspace, with a time limit and an environment that holds no API key;
off when ``allow_shell`` is false) and ``skill`` (loads a SKILL.md body).
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scievals.common.io import parse_yaml
from scievals.common.subprocess_limits import run_limited
from scievals.waza.executors.base import Execution, Trial, TurnHook
from scievals.waza.session import final_output

if TYPE_CHECKING:  # the LLM layer is imported when an agent runs (fast DAG builds)
    from scievals.llm.base import ModelSpec
    from scievals.llm.settings import LLMSettings

# The predict_llm rule's code version (system prompt, tools, loop, what a run records).
# v2: runs are recorded (final workspace files included) and graded in the score stage.
# v3: file tools refuse pipes, sockets and devices; the task timeout bounds a shell command;
# tool_calls[].result is Go's {content, detailedContent}, report_intent events dropped.
# v4: a smoke run (limit N) sends the first N trigger prompts of each suite, not all.
PROMPT_VERSION = "waza-agent-v4"
# The LLM cache scope: changes only when the conversation changes (prompt, tools, loop),
# so recording more of a run re-uses every cached reply.
CACHE_SCOPE = "waza/waza-agent-v1"
TOOL_BLOCK = re.compile(r"```tool\s*\n(.*?)\n?```", re.DOTALL)
MAX_TOOL_OUTPUT = 8000
MAX_READ_BYTES = 1 << 20  # a read returns at most MAX_TOOL_OUTPUT characters anyway


@dataclass
class Skill:
    name: str
    description: str
    body: str
    path: Path


@dataclass
class AgentSettings:
    max_turns: int = 12
    allow_shell: bool = True
    shell_timeout_s: float = 30.0


@dataclass
class AgentRun:
    """``error``: the first turn failed (nothing to grade); ``followup_error``: a later
    turn failed after ``turns`` completed turns whose last output is ``output``."""

    events: list[dict] = field(default_factory=list)
    error: str = ""
    turns: int = 1
    output: str | None = None
    followup_error: str = ""


def read_skill(path: Path) -> Skill:
    """A SKILL.md: YAML front matter (name, description) then the body."""
    text = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    body = text
    if text.startswith("---"):
        _, front, body = text.split("---", 2)
        meta = parse_yaml(front, path) or {}
    name = str(meta.get("name") or path.parent.name)
    return Skill(name=name, description=str(meta.get("description") or "").strip(),
                 body=body.strip(), path=path)


def find_skills(directories: list[Path]) -> dict[str, Skill]:
    """Every SKILL.md directly in, or one level below, the given directories."""
    skills: dict[str, Skill] = {}
    for directory in directories:
        for path in sorted([directory / "SKILL.md", *directory.glob("*/SKILL.md")]):
            if path.is_file():
                skill = read_skill(path)
                skills.setdefault(skill.name, skill)
    return skills


def system_prompt(skills: dict[str, Skill], allow_shell: bool) -> str:
    tools = [
        '- read {"path": P}: the text of a file',
        '- write {"path": P, "content": TEXT}: create or replace a file',
        '- list {"path": P}: the entries of a directory (default ".")',
    ]
    if allow_shell:
        tools.append('- shell {"command": CMD}: run a shell command in the workspace')
    if skills:
        tools.append('- skill {"skill": NAME}: load a skill\'s instructions before using it')
    lines = [
        "You are a coding agent working in a workspace directory. Paths are relative to it.",
        "To call a tool, reply with one or more blocks exactly like:",
        '```tool\n{"tool": "read", "arguments": {"path": "example.py"}}\n```',
        "Tool results come back in the next message. Reply without any tool block to give",
        "your final answer to the user.", "", "Tools:", *tools,
    ]
    if skills:
        lines += ["", "Available skills (load one with the skill tool when it fits the request):"]
        lines += [f"- {s.name}: {' '.join(s.description.split())}" for s in skills.values()]
    return "\n".join(lines)


class Workspace:
    """File tools confined to one directory."""

    def __init__(self, root: Path, settings: AgentSettings) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.deadline = math.inf  # time.monotonic() at which the task's timeout ends

    def _path(self, relative: str) -> Path:
        path = (self.root / (relative or ".")).resolve()
        if path != self.root and self.root not in path.parents:
            raise ValueError(f"path {relative!r} is outside the workspace")
        return path

    def _open(self, path: str, flags: int) -> int:
        """A descriptor of a regular file in the workspace. Opened non-blocking and checked
        after opening (no race): a named pipe would block the read (or write) until the
        end of time, a device never ends, a socket is no file."""
        target = self._path(path)
        try:
            fd = os.open(target, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a pipe without a reader (to write), a socket
                raise ValueError(f"{path!r} is a named pipe, socket or device, not a regular "
                                 "file") from None
            raise
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            kind = "a folder (use list)" if stat.S_ISDIR(mode) else (
                "a named pipe, socket or device")
            raise ValueError(f"{path!r} is {kind}, not a regular file")
        return fd

    def read(self, path: str) -> str:
        with os.fdopen(self._open(path, os.O_RDONLY), "rb") as handle:
            data = handle.read(MAX_READ_BYTES)
        return data.decode("utf-8", errors="replace")

    def write(self, path: str, content: str) -> str:
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(self._open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as out:
            out.write(content.encode("utf-8"))
        return f"wrote {len(content)} characters to {path}"

    def list(self, path: str = ".") -> str:
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in self._path(path).iterdir())
        return "\n".join(entries) or "(empty)"

    def shell(self, command: str) -> str:
        if not self.settings.allow_shell:
            raise ValueError("the shell tool is turned off (waza.agent.allow_shell)")
        # Scrubbed env, own process group (killed at the end too), memory/CPU limits; the
        # task's timeout holds during the command too, not only between turns.
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise ValueError("the task's time is up")
        limit = min(self.settings.shell_timeout_s, left)
        done = run_limited(command, shell=True, cwd=self.root, merge_stderr=True,
                           timeout_s=limit)
        if done.timed_out:
            raise ValueError(f"command timed out after {limit:g} s")
        output = done.stdout.decode("utf-8", "replace")
        return f"exit code {done.returncode}\n{output}"


def parse_tool_calls(text: str) -> list[tuple[str, dict]] | str:
    """The reply's tool calls as (tool, arguments), or an error text to send back."""
    calls = []
    for block in TOOL_BLOCK.findall(text):
        try:
            item = json.loads(block)
        except json.JSONDecodeError as exc:
            return f"tool block is not valid JSON ({exc.msg}); resend it"
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            return 'a tool block needs {"tool": NAME, "arguments": {...}}; resend it'
        arguments = item.get("arguments") or {}
        if not isinstance(arguments, dict):
            return "tool arguments must be a JSON object; resend it"
        calls.append((item["tool"], arguments))
    return calls


class Agent:
    """One model working through one prompt; ``run`` returns the session events."""

    def __init__(self, spec: ModelSpec, llm: LLMSettings, settings: AgentSettings,
                 skills: dict[str, Skill], records_path: Path | None = None) -> None:
        self.spec = spec.model_copy(update={"n_samples": 1})
        self.llm = llm
        self.settings = settings
        self.skills = skills
        self.records_path = records_path
        self.responses: list = []  # every LLMResponse of this agent, for usage.json

    def _tool(self, workspace: Workspace, name: str, args: dict, events: list[dict],
              skills: dict[str, Skill]) -> str:
        if name == "read":
            return workspace.read(str(args.get("path", "")))
        if name == "write":
            return workspace.write(str(args.get("path", "")), str(args.get("content", "")))
        if name == "list":
            return workspace.list(str(args.get("path", ".")))
        if name == "shell":
            return workspace.shell(str(args.get("command", "")))
        if name == "skill" and skills:
            skill = skills.get(str(args.get("skill", "")))
            if skill is None:
                raise ValueError(f"no skill {args.get('skill')!r} (have: {', '.join(skills)})")
            events.append({"type": "skill.invoked", "data": {
                "name": skill.name, "path": str(skill.path), "content": skill.body}})
            return f"Skill {skill.name!r} loaded. Follow its instructions:\n\n{skill.body}"
        raise ValueError(f"unknown tool {name!r}")

    def run(self, prompt: str | Sequence[str], workspace_dir: Path, case_id: str,
            sample_index: int, timeout_s: float, on_turn: TurnHook | None = None,
            skills: dict[str, Skill] | None = None) -> AgentRun:
        """The conversation: each user turn (the prompt, then follow-ups) runs the tool
        loop to a final answer, with its own ``timeout_s`` and ``max_turns``. ``skills``
        (None: the agent's own) are what the skill tool offers in this run."""
        from scievals.llm.base import Message  # the LLM layer only when an agent runs

        skills = self.skills if skills is None else skills
        prompts = [prompt] if isinstance(prompt, str) else list(prompt)
        workspace = Workspace(workspace_dir, self.settings)
        messages = [Message(role="system",
                            content=system_prompt(skills, self.settings.allow_shell))]
        events: list[dict] = []
        output = ""
        for number, text in enumerate(prompts, start=1):
            messages.append(Message(role="user", content=text))
            events.append({"type": "user.message", "data": {"content": text}})
            first_event = len(events)
            # Turn 1 keeps the single-prompt request ids (cached replies stay valid).
            prefix = case_id if number == 1 else f"{case_id}/followup{number - 1}"
            error = self._user_turn(workspace, messages, events, prefix, sample_index,
                                    timeout_s, skills)
            if error:
                if number == 1:
                    return AgentRun(events, error)
                return AgentRun(events, "", number - 1, output,
                                f"follow-up {number - 1}/{len(prompts) - 1} failed: {error}")
            output = final_output(events[first_event:])
            if on_turn is not None and not on_turn(number, list(events), output) and (
                    number < len(prompts)):
                return AgentRun(events, "", number, output)
        return AgentRun(events, "", len(prompts), output)

    def _user_turn(self, workspace: Workspace, messages: list, events: list[dict],
                   case_id: str, sample_index: int, timeout_s: float,
                   skills: dict[str, Skill]) -> str:
        """The tool loop of one user turn; "" when the model gave a final answer, else
        the error. The final answer is appended to ``messages`` for a next turn."""
        # the LLM layer only when an agent runs; the runner needs the 'llm' extra (tenacity)
        from scievals.llm.base import LLMRequest, Message
        from scievals.llm.runner import run_batch

        started = time.monotonic()
        workspace.deadline = started + timeout_s
        for turn in range(self.settings.max_turns):
            if time.monotonic() - started > timeout_s:
                return f"timed out after {timeout_s:g} s"
            request = LLMRequest(case_id=f"{case_id}/turn{turn}", messages=list(messages),
                                 sample_index=sample_index)
            response = run_batch(self.spec, [request], self.llm, scope=CACHE_SCOPE,
                                 records_path=self.records_path,
                                 label=f"{self.spec.name} {case_id} turn {turn}",
                                 announce=False, realtime=True).responses[0]
            self.responses.append(response)
            if response.error or response.text is None:
                return f"model error: {response.error or 'empty reply'}"
            text = response.text
            events.append({"type": "assistant.usage", "data": {
                "model": self.spec.model or self.spec.name,
                "input_tokens": response.usage.tokens_in,
                "output_tokens": response.usage.tokens_out}})
            calls = parse_tool_calls(text)
            prose = TOOL_BLOCK.sub("", text).strip()
            messages.append(Message(role="assistant", content=text))
            if isinstance(calls, list) and not calls:
                events.append({"type": "assistant.message", "data": {"content": prose}})
                return ""
            if prose:  # text beside tool calls is an assistant message too, as in Copilot
                events.append({"type": "assistant.message", "data": {"content": prose}})
            if isinstance(calls, str):
                messages.append(Message(role="user", content=f"Tool error: {calls}"))
                continue
            results = []
            for index, (name, args) in enumerate(calls):
                call_id = f"call_{turn}_{index}"
                events.append({"type": "tool.execution_start", "data": {
                    "toolCallId": call_id, "toolName": name, "arguments": args}})
                try:
                    output, success = self._tool(workspace, name, args, events,
                                                 skills), True
                except (OSError, ValueError, UnicodeError) as exc:
                    output, success = f"error: {exc}", False
                output = output[:MAX_TOOL_OUTPUT]
                events.append({"type": "tool.execution_complete", "data": {
                    "toolCallId": call_id, "toolName": name, "success": success,
                    "result": {"content": output}}})
                results.append(f"[{name} result]\n{output}")
            messages.append(Message(role="user", content="\n\n".join(results)))
        return f"no final answer after {self.settings.max_turns} turns"


def agent_settings(section: dict | None) -> AgentSettings:
    """``waza.agent`` of the workflow config (defaults when absent)."""
    section = section or {}
    return AgentSettings(max_turns=int(section.get("max_turns", 12)),
                         allow_shell=bool(section.get("allow_shell", True)),
                         shell_timeout_s=float(section.get("shell_timeout_s", 30)))


class AgentExecutor:
    """The executor interface over :class:`Agent`; a trigger prompt gets an empty
    scratch workspace, and its answer is which skills the agent loaded."""

    kind = "llm"

    def __init__(self, agent: Agent, skills: bool = True) -> None:
        self.agent = agent
        self.skills = skills  # False: the A/B baseline arm, no skill whatever the task says

    def execute(self, prompt: str, workspace: Path | None, trial: Trial,
                follow_ups: Sequence[str] = (), on_turn: TurnHook | None = None
                ) -> Execution:
        scratch = None
        if workspace is None:
            scratch = workspace = Path(tempfile.mkdtemp(prefix="waza-trigger-"))
        try:
            skills = {} if not self.skills else (
                find_skills(list(trial.skill_dirs)) if trial.skill_dirs is not None else None)
            result = self.agent.run([prompt, *follow_ups], workspace, trial.case_id,
                                    trial.sample_index, trial.timeout_s, on_turn, skills)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        # One turn: the output is every assistant message (as before); several: the last
        # turn's only (waza's final_output).
        output = result.output if (follow_ups and not result.error) else None
        return Execution(events=result.events, output=output, error=result.error,
                         turns=result.turns, followup_error=result.followup_error)

    def invoked_skills(self, prompt: str, should_trigger: bool, trial: Trial
                       ) -> tuple[list[str], str]:
        execution = self.execute(prompt, None, trial)
        names = [str(e["data"].get("name", "")) for e in execution.events
                 if e.get("type") == "skill.invoked"]
        return names, execution.error
