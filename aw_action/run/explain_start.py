"""Why a run could not start, or its key was refused: explanations that name the input, file,
variable or key to fix (``run/explain.py``'s table lists them)."""

from __future__ import annotations

from aw_action.ai.credentials import action_inputs, provider_variables
from aw_action.exits import MissingCredentialsError, SdkLoadError
from aw_action.run.explanation import Explanation, Facts, Name, Part, Verbatim, Words, setting_words
from aw_action.run.record import Audience


def credentials_refused(facts: Facts) -> Explanation:
    error = facts.result.error or "the provider refused the credential"
    key = key_words(facts)
    return Explanation(
        "credentials_refused",
        "error",
        "The provider refused the credentials",
        ("The model's provider refused the key: ", Verbatim(error.rstrip(".")), "."),
        ("Replace ", *key, " with a valid key that may use this model (not expired, revoked or out of quota)."),
    )


def key_words(facts: Facts) -> Words:
    """The setting that holds the model's key, for the audience."""
    provider = facts.result.model.split("/", 1)[0]
    variables = provider_variables(provider)
    inputs = action_inputs()
    if facts.audience == "action":
        named = [inputs[v] for v in variables if v in inputs]
        if named:
            return ("the secret behind the ", Name(named[0]), " input")
    if variables:
        return ("the key in ", Name(variables[0]))
    return ("the key",)


def invocation(facts: Facts) -> Explanation:
    """The run could not start: the error names what is wrong; the fix names what to change."""
    result = facts.result
    error = result.error or "the invocation is not valid"
    setting = result.setting
    why: Words = (Verbatim(error.rstrip(".")), ".")
    if setting is not None and setting.kind == "input":
        return Explanation(
            result.stop_reason,
            "error",
            f"Invalid input '{setting.name}'",
            why,
            ("Correct ", *setting_words(setting), " under the step's ", Name("with:"), ", then re-run."),
        )
    if isinstance(result.cause, MissingCredentialsError):
        return no_key(result.cause, facts.audience)
    if isinstance(result.cause, SdkLoadError):
        module = result.cause
        why = ("The module ", Name(module.module), " could not be imported: ", Verbatim(module.detail.rstrip(".")), ".")
        fix: Words = (
            "Rebuild the action image (",
            Name("docker build --no-cache ."),
            ") or reinstall the package (",
            Name("pip install --force-reinstall aw-harness"),
            "), then re-run.",
        )
        return Explanation(result.stop_reason, "error", "The run could not start: a module is missing", why, fix)
    if result.stop_reason == "extension_error":
        fix = ("Reinstall the package or rebuild the action image: a built-in extension is broken.",)
        return Explanation(result.stop_reason, "error", "A built-in extension failed", why, fix)
    if setting is not None:
        return Explanation(
            result.stop_reason, "error", "The run could not start", why, ("Correct ", *setting_words(setting), ".")
        )
    return Explanation(result.stop_reason, "error", "The run could not start", why, what_to_check(facts.audience))


def no_key(cause: MissingCredentialsError, audience: Audience) -> Explanation:
    hint: Words = ("; ", Verbatim(cause.hint)) if cause.hint else ()
    why: Words = ("No key for model ", Name(cause.model), " was given", *hint, ".")
    inputs = action_inputs()
    named = [v for v in cause.variables if v in inputs]
    if audience == "action" and named:
        name, var = inputs[named[0]], named[0]
        others = [v for v in cause.variables if v not in inputs]
        rest: Words = (" (or ", Name(others[0]), " in the step's env)") if others else ()
        example = f"{name}: ${{{{ secrets.{var} }}}}"
        fix: Words = (
            "Set the ",
            Name(name),
            " input",
            *rest,
            ", e.g. ",
            Name(example),
            " under the step's ",
            Name("with:"),
            ".",
        )
    elif cause.variables:
        names: list[Part] = []
        for i, variable in enumerate(cause.variables):
            names += [" or " if i else "", Name(variable)]
        fix = ("Set ", *names, " in the environment.")
    else:
        fix = ("Give the run a credential for this model's provider.",)
    return Explanation("invocation_error", "error", "No credentials for the model", why, fix)


def what_to_check(audience: Audience) -> Words:
    if audience == "action":
        return ("Check the step's inputs (", Name("with:"), ") and the files they name, then re-run.")
    if audience == "gh-aw":
        return ("Check the agent step's environment (", Name("GH_AW_*"), ", the engine's model), then re-run.")
    return ("Check the files ", Name("--config"), " and ", Name("--prompt"), " name, then re-run.")
