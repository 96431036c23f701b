"""LLM-judge graders: Go ``prompt`` (independent and pairwise) and the
Python-era ``llm`` and ``llm_comparison``.

Judges are reached through :class:`LLMJudge` (the LLM layer, with its cache, so
a re-run costs no request). waza's ``prompt`` judge is a Copilot session that
calls ``set_waza_grade_pass``/``set_waza_grade_fail`` tools; a plain chat model
has no such session, so it is asked for the same calls as JSON
(``{"grades": [{"verdict": "pass"|"fail", "description", "reason"}]}``) and is
shown the agent's output and workspace files, which waza's judge would read
through the resumed session or the workspace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from scievals.waza.graders.base import (
    GraderConfigError,
    GraderContext,
    GraderError,
    GraderOptions,
    GraderResult,
)
from scievals.waza.graders import rubrics
from scievals.waza.graders._common import Config

JUDGE_SCOPE = "waza/judge-v1"
WORKSPACE_FILE_LIMIT = 20
WORKSPACE_BYTES_LIMIT = 4000
LEGACY_DEFAULT_MODEL = "gpt-4o-mini"


class Judge(Protocol):
    """Answers one judge prompt with the model's text (raises GraderError on failure)."""

    def ask(self, case_id: str, prompt: str, model: str = "",
            json_schema: dict | None = None) -> str: ...


class LLMJudge:
    """A judge backed by ``scievals.llm``: ``specs`` maps model names to registry
    entries; a grader's ``model`` picks one by name, else ``default`` answers."""

    def __init__(
        self,
        default,
        settings,
        specs: Mapping[str, Any] | None = None,
        records_path: Path | None = None,
    ) -> None:
        self.default = default
        self.settings = settings
        self.specs = dict(specs or {})
        self.records_path = records_path

    def model_name(self, model: str = "") -> str:
        """The registry model that answers for a grader's ``model``."""
        return self.specs.get(model, self.default).name

    def ask(self, case_id: str, prompt: str, model: str = "",
            json_schema: dict | None = None) -> str:
        """The judge's reply; ``json_schema`` ({"name", "schema"}) is the form the prompt asks
        for, sent for the server to enforce where the model allows (scievals.llm.structured)."""
        # the LLM layer only when a judge asks; the runner needs the 'llm' extra (tenacity)
        from scievals.llm.base import LLMRequest, Message
        from scievals.llm.runner import run_batch

        spec = self.specs.get(model, self.default)
        request = LLMRequest(case_id=case_id, messages=[Message(role="user", content=prompt)],
                             json_schema=json_schema)
        response = run_batch(
            spec, [request], self.settings, JUDGE_SCOPE, self.records_path, announce=False,
            realtime=True,  # one verdict per call, awaited: no batch API
        ).responses[0]
        if response.error or response.text is None:
            raise GraderError(
                f"judge model {spec.name}",
                f"no verdict: {response.error}",
                "check the model and retry",
            )
        return response.text


def _need_judge(options: GraderOptions | None, kind: str) -> Judge:
    if options is None or options.judge is None:
        raise GraderError(
            f"{kind} grader",
            "no judge model configured",
            "name a judge model for the suite (waza judge_model)",
        )
    return options.judge


def answering_model(options: GraderOptions | None, model: str) -> str:
    """Which model answers for ``model`` (judges other than LLMJudge: the name asked for)."""
    name_of = getattr(options.judge if options else None, "model_name", None)
    return name_of(model) if name_of else model


def parse_json_reply(text: str, where: str) -> dict[str, Any]:
    """The JSON object in a judge reply (a ```json fence is tolerated)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise GraderError(
            where, f"judge reply is not JSON ({exc})", f"see the judge's reply {text[:200]!r}"
        ) from None
    if not isinstance(value, dict):
        raise GraderError(where, "judge reply is not a JSON object", f"got {text[:200]!r}")
    return value


def _workspace_listing(workspace: Path | None) -> str:
    if workspace is None or not workspace.is_dir():
        return "(no workspace)"
    parts = []
    files = sorted(p for p in workspace.rglob("*") if p.is_file())
    for path in files[:WORKSPACE_FILE_LIMIT]:
        text = path.read_bytes()[:WORKSPACE_BYTES_LIMIT].decode("utf-8", "replace")
        parts.append(f"### {path.relative_to(workspace)}\n```\n{text}\n```")
    if len(files) > WORKSPACE_FILE_LIMIT:
        parts.append(f"({len(files) - WORKSPACE_FILE_LIMIT} more files not shown)")
    return "\n".join(parts) or "(empty workspace)"


INDEPENDENT_PROTOCOL = """\
Record your grading as tool calls, written as JSON. Reply with only this object:
{"grades": [{"verdict": "pass" or "fail", "description": "<what was checked>", \
"reason": "<why>"}]}
Each entry is one call of set_waza_grade_pass (verdict "pass") or set_waza_grade_fail \
(verdict "fail")."""

def _closed(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    """A reply schema in OpenAI's strict subset: one closed object, every key required."""
    return {"name": name, "schema": {"type": "object", "properties": properties,
                                     "required": list(properties), "additionalProperties": False}}


# The judge replies' JSON schemas (the protocols' forms), sent with the requests.
GRADES_SCHEMA = _closed("waza_grades", {"grades": {"type": "array", "items": _closed("grade", {
    "verdict": {"type": "string", "enum": ["pass", "fail"]},
    "description": {"type": "string"}, "reason": {"type": "string"}})["schema"]}})
PAIRWISE_SCHEMA = _closed("waza_pairwise", {
    "winner": {"type": "string", "enum": ["A", "B", "tie"]},
    "magnitude": {"type": "string"}, "reasoning": {"type": "string"}})
SCORE_SCHEMA = _closed("waza_score", {
    "score": {"type": "number"}, "reasoning": {"type": "string"}, "passed": {"type": "boolean"}})

PAIRWISE_PROTOCOL = """\
Compare the two outputs against the rubric. Reply with only this JSON object (the \
set_pairwise_winner call): {"winner": "A" or "B" or "tie", "magnitude": \
"<slight|moderate|strong>", "reasoning": "<why>"}"""


class PromptGrader:
    """score = passes / (passes + fails), 0 with none; passed = no fails and ≥1 pass."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("prompt", config, ("prompt", "model", "continue_session", "mode",
                                         "rubric", "reasoning_effort"))
        self.prompt = cfg.str("prompt")
        # current waza: a built-in or file rubric; config.prompt overrides its body.
        # reasoning_effort is accepted; a chat model through the LLM layer has no such knob.
        self.rubric = rubrics.load(cfg.str("rubric")) if cfg.str("rubric") else None
        if not self.prompt and self.rubric is None:
            raise GraderConfigError(
                "prompt grader config: key prompt",
                "required",
                "write the judge's instructions under config.prompt (or name a rubric)",
            )
        self.model = cfg.str("model") or (options.judge_model if options else "")
        self.continue_session = bool(cfg.bool("continue_session", False))
        self.mode = cfg.str("mode", "independent") or "independent"
        if self.mode not in ("independent", "pairwise"):
            raise GraderConfigError(
                "prompt grader config: key mode",
                f"invalid mode {self.mode!r}",
                "use independent or pairwise",
            )
        self.options = options

    def grade(self, context: GraderContext) -> GraderResult:
        judge = _need_judge(self.options, "prompt")
        if self.mode == "pairwise" and context.baseline_output is not None:
            return self._pairwise(judge, context)
        if self.continue_session and not context.session_id:
            raise GraderError(
                "prompt grader",
                "continue_session needs the agent's session id",
                "the run recorded no session",
            )
        if self.rubric is not None:
            sections = self._rubric_sections(context)
        else:
            sections = [
                self.prompt,
                "## Agent output",
                context.output or "(empty)",
                "## Workspace files",
                _workspace_listing(context.workspace_dir),
            ]
        if self.continue_session:
            sections += [
                "## Agent session transcript",
                json.dumps(context.transcript, ensure_ascii=False)[:20000],
            ]
        reply = judge.ask("prompt", "\n\n".join([*sections, INDEPENDENT_PROTOCOL]), self.model,
                          json_schema=GRADES_SCHEMA)
        grades = parse_json_reply(reply, "prompt grader").get("grades")
        if not isinstance(grades, list):
            raise GraderError(
                "prompt grader", "judge reply has no 'grades' list", f"got {reply[:200]!r}"
            )
        passes = [g for g in grades if isinstance(g, Mapping) and g.get("verdict") == "pass"]
        fails = [g for g in grades if isinstance(g, Mapping) and g.get("verdict") == "fail"]
        total = len(passes) + len(fails)
        feedback = (
            ";".join(f"fail: {g.get('description', '')}: {g.get('reason', '')}" for g in fails)
            or "All prompts passed"
        )
        return GraderResult(
            len(passes) / total if total else 0.0,
            not fails and bool(passes),
            feedback,
            {
                "passes": len(passes),
                "fails": len(fails),
                "model": answering_model(self.options, self.model),
                "mode": "independent",
                **({"rubric": self.rubric.meta} if self.rubric is not None else {}),
            },
        )

    def _rubric_sections(self, context: GraderContext) -> list[str]:
        """waza's rubric prompt: the body (config.prompt wins), ``---``, then ``## Task
        input`` / ``## Source context`` / ``## Candidate output``, each left out when
        empty. Task input = the task's prompt; source context = the workspace files."""
        inputs = (context.task or {}).get("inputs") or {}
        task_input = str(inputs.get("prompt") or "") if isinstance(inputs, Mapping) else ""
        listing = _workspace_listing(context.workspace_dir)
        source = "" if listing == "(no workspace)" else listing
        sections = [self.prompt or self.rubric.body, "---"]
        for title, text in (("## Task input", task_input), ("## Source context", source),
                            ("## Candidate output", context.output)):
            if text:
                sections += [title, text]
        return sections

    def _pairwise(self, judge: Judge, context: GraderContext) -> GraderResult:
        """Judge twice with positions swapped; disagreeing verdicts become a tie."""
        skill, baseline = context.output, context.baseline_output or ""
        first = self._winner(judge, "prompt-pairwise-1", skill, baseline)  # A = skill
        second = self._winner(judge, "prompt-pairwise-2", baseline, skill)  # A = baseline
        as_skill = {"A": "skill", "B": "baseline", "tie": "tie"}
        swapped = {"A": "baseline", "B": "skill", "tie": "tie"}
        one, two = as_skill[first["winner"]], swapped[second["winner"]]
        consistent = one == two
        winner = one if consistent else "tie"
        magnitude = first.get("magnitude", "") if consistent else "equal"
        score = {"skill": 1.0, "tie": 0.5, "baseline": 0.0}[winner]
        feedback = f"Pairwise winner: {winner}" + (
            "" if consistent else " (inconsistent verdicts across positions)"
        )
        return GraderResult(
            score,
            winner in ("skill", "tie"),
            feedback,
            {
                "mode": "pairwise",
                "winner": winner,
                "magnitude": magnitude,
                "consistent": consistent,
                "reasoning": [first.get("reasoning", ""), second.get("reasoning", "")],
                "model": answering_model(self.options, self.model),
            },
        )

    def _winner(self, judge: Judge, case_id: str, a: str, b: str) -> dict[str, Any]:
        prompt = (
            f"## Rubric\n{self.prompt or (self.rubric.body if self.rubric else '')}\n\n"
            f"## Output A\n```\n{a}\n```\n\n"
            f"## Output B\n```\n{b}\n```\n\n{PAIRWISE_PROTOCOL}"
        )
        verdict = parse_json_reply(judge.ask(case_id, prompt, self.model,
                                             json_schema=PAIRWISE_SCHEMA), "prompt grader")
        if verdict.get("winner") not in ("A", "B", "tie"):
            raise GraderError(
                "prompt grader",
                "pairwise judge reply needs winner A, B or tie",
                f"got {verdict.get('winner')!r}",
            )
        return verdict


DEFAULT_RUBRIC = """Score the response from 1-5 based on:
1. Correctness: Is the output accurate and correct?
2. Completeness: Did it address all parts of the request?
3. Quality: Is the response well-structured and clear?

Return a JSON object with:
- "score": number from 1-5
- "reasoning": brief explanation
- "passed": true if score >= 4, false otherwise
"""


class LegacyLLMGrader:
    """Python era: a 1-5 judge score mapped to (raw-1)/4; passed = score ≥ threshold.

    The judge's own ``passed`` is ignored; a missing score counts as 3. A judge
    failure scores 0 (the Python era's "LLM grading failed: ...").
    """

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("llm", config, ("rubric", "model", "threshold"))
        self.rubric = _load_rubric(cfg.str("rubric"))
        self.model = cfg.str("model", LEGACY_DEFAULT_MODEL)
        self.threshold = cfg.float("threshold", 0.75)
        self.options = options

    def grade(self, context: GraderContext) -> GraderResult:
        task = context.task
        inputs = task.get("inputs") if isinstance(task.get("inputs"), Mapping) else {}
        prompt = (
            "You are an AI evaluator. Grade the following skill execution.\n\n"
            f"## Task\n{task.get('name', 'Unknown task')}\n{task.get('description', '')}"
            f"\n\n## Input\n{inputs.get('prompt', 'No prompt')}\n\n"
            f"## Output\n{context.output}\n\n## Rubric\n{self.rubric}\n\n"
            'Respond with a JSON object containing "score" (1-5), "reasoning", and '
            '"passed" (boolean).\n'
        )
        try:
            reply = parse_json_reply(
                _need_judge(self.options, "llm").ask("llm", prompt, self.model,
                                                     json_schema=SCORE_SCHEMA), "llm"
            )
            raw = _raw_score(reply, "llm")
        except GraderError as exc:
            return GraderResult(0.0, False, f"LLM grading failed: {exc.problem}")
        score = (raw - 1) / 4
        rubric = self.rubric[:100] + "..." if len(self.rubric) > 100 else self.rubric
        return GraderResult(
            score,
            score >= self.threshold,
            str(reply.get("reasoning", "")),
            {
                "raw_score": raw,
                "model": answering_model(self.options, self.model),
                "rubric_used": rubric,
            },
        )


def _load_rubric(rubric: str) -> str:
    """Inline text, or a file path unless the text starts with "Score"."""
    if rubric and not rubric.startswith("Score"):
        path = Path(rubric)
        try:
            if path.is_file():
                return path.read_text()
        except OSError:
            pass
    return rubric or DEFAULT_RUBRIC


def _raw_score(reply: Mapping[str, Any], where: str) -> float:
    raw = reply.get("score", 3)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise GraderError(where, f"judge score {raw!r} is not a number")
    return raw


class LegacyLLMComparisonGrader:
    """Python era: similarity to ``reference`` 1-5 → (raw-1)/4; passed = the
    judge's ``passed`` if given, else score ≥ 0.75; a judge failure counts as 3."""

    def __init__(self, config: Mapping[str, Any], options: GraderOptions | None = None) -> None:
        cfg = Config("llm_comparison", config, ("reference", "model"))
        self.reference = cfg.str("reference")
        self.model = cfg.str("model", LEGACY_DEFAULT_MODEL)
        self.options = options

    def grade(self, context: GraderContext) -> GraderResult:
        if not self.reference:
            return GraderResult(0.0, False, "No reference output configured")
        prompt = (
            "Compare these two outputs and rate their semantic similarity from 1-5.\n\n"
            f"## Reference Output (Expected)\n{self.reference}\n\n"
            f"## Actual Output\n{context.output}\n\n"
            "Score 5 if they convey the same information, even if worded differently.\n"
            "Score 1 if they are completely different or contradictory.\n\n"
            'Respond with JSON: {"score": N, "reasoning": "...", "passed": true/false}\n'
        )
        try:
            judge = _need_judge(self.options, "llm_comparison")
            reply = parse_json_reply(
                judge.ask("llm_comparison", prompt, self.model, json_schema=SCORE_SCHEMA),
                "llm_comparison"
            )
            raw = _raw_score(reply, "llm_comparison")
        except GraderError:
            reply, raw = {"reasoning": "Comparison not available", "passed": False}, 3
        score = (raw - 1) / 4
        passed = reply.get("passed")
        return GraderResult(
            score,
            bool(passed) if isinstance(passed, bool) else score >= 0.75,
            str(reply.get("reasoning", "")),
            {"raw_score": raw, "model": answering_model(self.options, self.model)},
        )


# The grader types of this family (read by graders.registry).
GRADERS = {
    "prompt": PromptGrader,
    "llm": LegacyLLMGrader,
    "llm_comparison": LegacyLLMComparisonGrader,
}
