"""The conda environments under envs/ agree with pyproject.toml.

`--sdm conda` users get their packages from envs/*.yaml, pip users from pyproject.toml;
both must describe the same software. Every env entry is pinned to one exact version that
satisfies pyproject's requirement, a package has the same pin in every env, every declared
runtime dependency is in some env, no env brings a package pyproject does not declare, and
every rule that runs code names an env that exists.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from scievals import registry
from scievals.common.entry import STAGE_JOBS
from scievals.common.io import read_yaml
from scievals.config_validation import validate_config

ROOT = Path(__file__).resolve().parents[2]
ENV_DIR = ROOT / "envs"
# Extras that are not needed by any job or by the process that runs the workflow (interop:
# `python -m scievals import`/`compare` of other tools' logs, outside the workflow).
NOT_IN_ENVS = {"test", "all", "interop"}
# conda-forge names that differ from the PyPI names in pyproject.toml.
CONDA_TO_PYPI = {"matplotlib-base": "matplotlib"}
# Tools, not dependencies.
NOT_PACKAGES = {"python", "pip"}
CONDA_SPEC = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:==?|\s)\s*([0-9][0-9A-Za-z.\-+]*)\s*$")
PIP_SPEC = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*==\s*([0-9][0-9A-Za-z.\-+]*)\s*$")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def declared_requirements() -> dict[str, Requirement]:
    project = pyproject()["project"]
    lines = list(project["dependencies"])
    for extra, items in project.get("optional-dependencies", {}).items():
        if extra not in NOT_IN_ENVS:
            lines += [i for i in items if not i.startswith(project["name"])]
    reqs = {}
    for line in lines:
        req = Requirement(line)
        reqs[canonicalize_name(req.name)] = req
    return reqs


def parse_env(path: Path) -> dict[str, str]:
    """Package -> pinned version for one env file (conda and pip sections)."""
    data = yaml.safe_load(path.read_text())
    pins: dict[str, str] = {}

    def add(name: str, version: str, entry: str) -> None:
        key = canonicalize_name(CONDA_TO_PYPI.get(name, name).split("[")[0])
        assert key not in pins, f"{path.name}: {key} listed twice"
        pins[key] = version

    for entry in data["dependencies"]:
        if isinstance(entry, dict):
            for pip_entry in entry.get("pip", []):
                match = PIP_SPEC.match(pip_entry)
                assert match, f"{path.name}: pip entry {pip_entry!r} is not pinned as name==version"
                add(match.group(1), match.group(2), pip_entry)
            continue
        if entry.strip() == "pip":
            continue
        match = CONDA_SPEC.match(entry)
        assert match, f"{path.name}: {entry!r} is not pinned to one version (write 'name =X.Y.Z')"
        add(match.group(1), match.group(2), entry)
    return pins


def env_files() -> list[Path]:
    return sorted(ENV_DIR.glob("*.yaml"))


def test_parse_env_reads_conda_and_pip_pins(tmp_path):
    env = tmp_path / "e.yaml"
    env.write_text(
        "dependencies:\n  - python =3.11\n  - pandas =2.3.3\n  - numpy=2.3.3\n"
        "  - matplotlib-base ==3.11.2\n  - pip\n  - pip:\n      - flowkit==1.3.2\n"
    )
    assert parse_env(env) == {
        "python": "3.11", "pandas": "2.3.3", "numpy": "2.3.3", "matplotlib": "3.11.2",
        "flowkit": "1.3.2",
    }
    env.write_text("dependencies:\n  - pandas >=2.2\n")
    with pytest.raises(AssertionError, match="not pinned"):
        parse_env(env)
    env.write_text("dependencies:\n  - pip:\n      - flowkit>=1.3\n")
    with pytest.raises(AssertionError, match="not pinned"):
        parse_env(env)


def test_there_are_env_files():
    names = {p.name for p in env_files()}
    assert {"core.yaml", "llm.yaml", "workspaces.yaml", "report.yaml", "workflow.yaml"} <= names


@pytest.mark.parametrize("env", env_files(), ids=lambda p: p.name)
def test_env_pins_satisfy_pyproject(env):
    declared = declared_requirements()
    requires_python = pyproject()["project"]["requires-python"]
    pins = parse_env(env)
    assert "python" in pins, f"{env.name}: pin the python version"
    python = Version(pins.pop("python"))
    assert Requirement(f"python{requires_python}").specifier.contains(python), (
        f"{env.name}: python {python} does not satisfy requires-python {requires_python}"
    )
    for name, version in pins.items():
        if name in NOT_PACKAGES:
            continue
        assert name in declared, f"{env.name}: {name} is not declared in pyproject.toml"
        spec = declared[name].specifier
        assert spec.contains(Version(version), prereleases=True), (
            f"{env.name}: {name} ={version} does not satisfy pyproject's {name}{spec}"
        )


def test_every_declared_dependency_is_in_some_env():
    in_envs = set().union(*(parse_env(p) for p in env_files()))
    missing = sorted(set(declared_requirements()) - in_envs)
    assert not missing, f"pyproject dependencies in no envs/*.yaml: {missing}"


def test_a_package_has_one_pin_across_envs():
    seen: dict[str, tuple[str, str]] = {}
    for env in env_files():
        for name, version in parse_env(env).items():
            if name in seen:
                first_env, first_version = seen[name]
                assert version == first_version, (
                    f"{name}: {first_env} pins {first_version}, {env.name} pins {version}"
                )
            else:
                seen[name] = (env.name, version)


def test_env_pins_equal_the_constraints_file():
    """pip installs use constraints.txt; conda installs must get the very same versions."""
    constraints = ROOT / "constraints.txt"
    assert constraints.exists(), "constraints.txt (the exact tested versions) is missing"
    pinned = {}
    for line in constraints.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            req = Requirement(line)
            pinned[canonicalize_name(req.name)] = str(req.specifier).removeprefix("==")
    for env in env_files():
        for name, version in parse_env(env).items():
            if name in pinned:
                assert Version(version) == Version(pinned[name]), (
                    f"{env.name}: {name} ={version} but constraints.txt pins {pinned[name]}"
                )


RULE_START = re.compile(r"^\s*rule(?:\s+(\w+))?\s*:", re.MULTILINE)


def rule_blocks(text: str) -> list[tuple[str, str]]:
    starts = list(RULE_START.finditer(text))
    blocks = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        blocks.append((match.group(1) or "<unnamed>", text[match.end():end]))
    return blocks


def generated_stages():
    """(rule name, Stage) of every rule rules/stages.smk generates under the default config."""
    config = validate_config(read_yaml(ROOT / "config" / "config.yaml"))
    return [(f"{bench.name}_{role}", stage) for bench in registry.REGISTRY
            for role, stage in bench.stages(config).items()]


def stage_code(rule: str, stage) -> list[Path]:
    """The code a generated rule's job runs: its entry script and the benchmark module the
    script dispatches to (scievals.<b>.score for scoring, else the stage's module:
    scievals.common.entry.STAGE_JOBS)."""
    name = rule.removesuffix(f"_{stage.role}")
    module = "score" if stage.role == "score" else STAGE_JOBS[stage.role][0]
    return [ROOT / "scripts" / "job.py", ROOT / "scripts" / stage.script,
            ROOT / "scripts" / "scievals" / name / f"{module}.py"]


def test_every_generated_rule_names_an_existing_env_and_its_code_exists():
    stages = generated_stages()
    assert {role for _, stage in stages for role in [stage.role]} >= {"download", "score"}
    for rule, stage in stages:
        assert (ENV_DIR / f"{stage.env}.yaml").is_file(), f"{rule}: no envs/{stage.env}.yaml"
        assert all(path.is_file() for path in stage_code(rule, stage)), rule


def test_each_generated_rule_env_provides_what_its_code_imports():
    """With --sdm conda a job sees only its env: the generated rules too (their code is the
    stage's entry script plus the benchmark module it dispatches to)."""
    for rule, stage in generated_stages():
        pins = parse_env(ENV_DIR / f"{stage.env}.yaml")
        needed = {canonicalize_name(IMPORT_TO_DIST.get(m, m))
                  for path in stage_code(rule, stage) for m in third_party_imports(path)}
        missing = sorted(needed - set(pins))
        assert not missing, f"{rule} imports {missing}, not in envs/{stage.env}.yaml"


# rules/stages.smk writes its rules from Stage objects (checked by the two tests above).
WRITTEN_RULE_FILES = sorted(p for p in (ROOT / "rules").glob("*.smk") if p.name != "stages.smk")


def test_every_rule_that_runs_code_names_an_existing_env():
    smk_files = WRITTEN_RULE_FILES
    assert smk_files
    checked = 0
    for smk in smk_files:
        for name, body in rule_blocks(smk.read_text()):
            if not re.search(r"^\s*(script|shell|run|notebook|wrapper)\s*:", body, re.MULTILINE):
                continue  # target-only rules (inputs only) run nothing
            checked += 1
            conda = re.search(r"^\s*conda:\s*\n?\s*[\"']([^\"']+)[\"']", body, re.MULTILINE)
            assert conda, f"{smk.name}: rule {name} runs code but names no conda env"
            target = (smk.parent / conda.group(1)).resolve()
            assert target.parent == ENV_DIR.resolve() and target.exists(), (
                f"{smk.name}: rule {name} names {conda.group(1)}, which is not a file in envs/"
            )
    assert checked > 0


# Import names whose distribution is named differently.
IMPORT_TO_DIST = {"yaml": "pyyaml", "Bio": "biopython", "sklearn": "scikit-learn",
                  "json_repair": "json-repair", "PIL": "pillow", "re2": "google-re2"}


def _module_file(module: str) -> Path | None:
    base = ROOT / "scripts" / Path(*module.split("."))
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    if base.with_suffix(".py").exists():
        return base.with_suffix(".py")
    return None


def third_party_imports(script: Path) -> set[str]:
    """Top-level third-party modules a script imports, following scievals.* modules."""
    import ast
    import sys

    seen: set[Path] = set()
    found: set[str] = set()
    todo = [script]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "scievals":
                    target = _module_file(name)
                    if target:
                        todo.append(target)
                elif top not in sys.stdlib_module_names and top != "__future__":
                    found.add(top)
    return found


def test_third_party_imports_follow_scievals_modules(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import os\nimport yaml\nfrom scievals.common.io import write_csv\n")
    assert third_party_imports(script) == {"yaml"}


def test_each_rule_env_provides_what_its_script_imports():
    """With --sdm conda a job sees only its env: every package its code imports must be in it
    (its entry script, named in the job param, and scripts/job.py, which runs it)."""
    pattern = re.compile(
        r'conda:\s*\n\s*"\.\./envs/([\w-]+\.yaml)"(?:(?!\nrule).)*?job_param\([^,]+, "([\w]+\.py)"',
        re.DOTALL,
    )
    checked = 0
    for smk in WRITTEN_RULE_FILES:
        for env_name, script in pattern.findall(smk.read_text()):
            pins = parse_env(ENV_DIR / env_name)
            needed = {canonicalize_name(IMPORT_TO_DIST.get(m, m))
                      for path in (ROOT / "scripts" / script, ROOT / "scripts" / "job.py")
                      for m in third_party_imports(path)}
            missing = sorted(needed - set(pins))
            assert not missing, f"{smk.name}: {script} imports {missing}, not in envs/{env_name}"
            checked += 1
    assert checked >= 3  # summaries, the leaderboard page, gating_extract (+ generated above)
