"""validate(spec): every issue at once; the same list feeds the CLI, catalog and LLM repair."""

from __future__ import annotations

from pydantic import ValidationError

from a4a.runtime.graph import checks, flow
from a4a.runtime.graph.issues import Issue, errors, from_pydantic
from a4a.runtime.ir.spec import FrameworkSpec

_STRUCTURAL = (checks.check_names,)
_SEMANTIC = (
    checks.check_tools,
    checks.check_prompts,
    checks.check_patterns,
    checks.check_trust,
    checks.check_refusals,
    flow.check_edges,
    flow.check_reachability,
    flow.check_cycles,
    flow.check_depth_and_steps,
)


def validate(spec: FrameworkSpec) -> list[Issue]:
    """Return every issue of `spec` (errors and warnings), in a stable order."""
    issues = [i for check in _STRUCTURAL for i in check(spec)]
    if errors(issues):
        # Graph checks assume sound names; report what is known instead of guessing.
        issues += list(checks.check_tools(spec))
        return issues
    issues += [i for check in _SEMANTIC for i in check(spec)]
    return issues


def is_valid(spec: FrameworkSpec) -> bool:
    """Whether `spec` has no error-level issue."""
    return not errors(validate(spec))


def validate_data(data: object) -> tuple[FrameworkSpec | None, list[Issue]]:
    """Schema-check raw (parsed YAML/JSON) data, then validate: the spec and every issue."""
    if not isinstance(data, dict):
        return None, [Issue("yaml.not_mapping", "", "top level is not a mapping",
                            "Write the framework as a mapping.")]
    try:
        spec = FrameworkSpec.model_validate(data)
    except ValidationError as err:
        return None, from_pydantic(err)
    return spec, validate(spec)
