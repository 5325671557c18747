"""The run configuration: YAML validated by pydantic, with one-line errors that name the key and file.

Relative paths inside a config file are resolved against the folder that holds the file, so a
config can be moved together with its policy document without editing it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from intellagent import overrides
from intellagent.artifacts import Persona
from intellagent.artifacts.adversary import Encoding, StrategyName
from intellagent.artifacts.policies import Category
from intellagent.bundled import bundled
from intellagent.errors import UsageError
from intellagent.llm.spec import ModelSpec, parse_spec
from intellagent.persona_files import DEFAULT_MIX, builtin_personas, own_personas, read_persona_file

EXAMPLE_CONFIGS = bundled("configs")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _spec(value: Any) -> Any:
    return parse_spec(value) if isinstance(value, str) else value


def _spelled(value: Any) -> Any:
    # YAML reads an unquoted yes or no (and true, false, on, off) as a boolean.
    return ("yes" if value else "no") if isinstance(value, bool) else value


Switch = Annotated[Literal["auto", "yes", "no"], BeforeValidator(_spelled)]
"""A setting that is on (`yes`), off (`no`), or chosen for the model in use (`auto`)."""


def switched_on(setting: Switch, provider: str) -> bool:
    """Whether `setting` is on for a model of `provider`: `auto` is on for hosted models, off on the embedded one."""
    return setting == "yes" or (setting == "auto" and provider != "local")


def on_locally(setting: Switch, provider: str) -> bool:
    """Whether `setting`, a measure for small models, is on for a model of `provider`: `auto` is on for the embedded
    model only."""
    return setting == "yes" or (setting == "auto" and provider == "local")


class EnvironmentConfig(_Strict):
    """Where the world of the chatbot under test is defined."""

    policy: Path = Field(description="The policy document (the chatbot's system prompt), Markdown or text.")
    schema_module: str = Field(
        alias="schema",
        description="Module with the SQLModel tables: a dotted name (package.module) or a .py path.",
    )
    tools: str = Field(description="Module with the chatbot's tools, as a dotted name or a .py path.")
    user_tools: str | None = Field(
        default=None,
        description="Module with the user's own tools on its side of the world (its device, its app), which the "
        "simulated user calls and the chatbot never gets (optional; dual control).",
    )
    validators: str | None = Field(default=None, description="Module with row validators (optional).")
    background: str | None = Field(
        default=None, description="Module with a `generate(session, seed)` that builds the base world (optional)."
    )
    checks: str | None = Field(
        default=None, description="Module with @check functions: policy rules decided over a dialog (optional)."
    )
    sync: str | None = Field(
        default=None,
        description="Module with a `sync(session)` that carries a change made on one side of the world to the other "
        "(a payment made on the user's device reaching the company's bill), run after every tool call (optional; "
        "dual control).",
    )
    solo_policy: Path | None = Field(
        default=None,
        description="The policy a solo dialog's chatbot gets instead of `policy`: the same rules for a chatbot that "
        "holds the user's tools itself (optional; dual control).",
    )
    tau: str | None = Field(
        default=None,
        description="Module that loads τ-bench's data into the tables and exports it back, to play τ-bench's "
        "published tasks (optional).",
    )
    rules: Path | None = Field(
        default=None,
        description="The domain's reviewed rules file (YAML): rules a program decides over every dialog, each citing "
        "its policy passage with examples it must pass and fail; a run reads it and compiles nothing (optional).",
    )
    policy_list: Path | None = Field(
        default=None,
        description="A reviewed policy list (YAML): the task, flows, policies and check mapping describe reads "
        "instead of extracting them from the policy document, so every run, on any model, tests the same policies "
        "under the same ids. A file that does not exist yet is written there, for review, once describe has "
        "extracted the policies; an existing one is never overwritten (optional).",
    )
    tool_timeout: float = Field(
        default=10.0, gt=0,
        description="Seconds one tool call may run; past it the chatbot gets an error result and the dialog goes on.",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class LLMConfig(_Strict):
    """The LLM of every framework role; a role left out uses `default`."""

    default: ModelSpec = Field(
        default_factory=lambda: ModelSpec(provider="local"), description="The model of every role left unset."
    )
    policies: ModelSpec | None = Field(
        default=None,
        description="Reads the policy document: its flows and policies, their procedures and assertions, which "
        "policies each check enforces; and reverses a rule for calibration's `opposite` mutants.",
    )
    graph: ModelSpec | None = Field(
        default=None, description="Scores how likely two policies meet in one conversation: the policy graph's edges."
    )
    scenarios: ModelSpec | None = Field(
        default=None,
        description="Writes the scenarios (in τ-bench mode, names the policies each task tests).",
    )
    populate: ModelSpec | None = Field(
        default=None, description="Makes each scenario's database and proposes its expected outcome."
    )
    user: ModelSpec | None = Field(default=None, description="Plays the simulated user.")
    critique: ModelSpec | None = Field(
        default=None,
        description="Checks the simulated user's verdicts, and asks the audit's question whether the user pursued its "
        "goal.",
    )
    analysis: ModelSpec | None = Field(
        default=None, description="The judge: which policies each dialog tested and which the chatbot broke."
    )
    attacker: ModelSpec | None = Field(
        default=None, description="--red-team: plays the attacker aimed at one rule, and writes the instructions "
        "planted in the chatbot's data."
    )

    @model_validator(mode="before")
    @classmethod
    def _specs_from_strings(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"default": parse_spec(data)}
        if isinstance(data, dict):
            return {key: _spec(value) for key, value in data.items()}
        return data

    def for_role(self, role: str) -> ModelSpec:
        """The model of a framework role (`chatbot` is configured under `chatbot:`, not here)."""
        if role not in FRAMEWORK_ROLES:
            raise KeyError(f"unknown LLM role {role!r}; roles are {', '.join(FRAMEWORK_ROLES)}")
        return getattr(self, role) or self.default


FRAMEWORK_ROLES = ("policies", "graph", "scenarios", "populate", "user", "critique", "analysis", "attacker")


class ChatbotConfig(_Strict):
    """The chatbot under test and how to reach it (see the guide "Plugging in your chatbot")."""

    type: Literal["llm_agent", "python", "langgraph", "http", "openai"] = Field(
        default="llm_agent",
        description="How the chatbot is reached: a model given the policy and the tools (llm_agent), a Python "
        "callable, a LangGraph graph, an HTTP service, or an OpenAI-compatible endpoint.",
    )
    llm: ModelSpec | None = Field(default=None, description="llm_agent: its model; defaults to llm.default.")
    native_tools: Switch = Field(
        default="auto",
        description="llm_agent: use the API's tool calls, or a JSON choice per step (auto: no for local models).",
    )
    target: str | None = Field(default=None, description="python/langgraph: 'package.module:attribute'.")
    url: str | None = Field(default=None, description="http: the endpoint that returns the next reply.")
    model: str | None = Field(default=None, description="openai: the deployed model's name.")
    base_url: str | None = Field(default=None, description="openai: the endpoint's base URL.")
    api_key_env: str | None = Field(default=None, description="openai/http: env var holding the key, if any.")
    timeout: float = Field(default=60.0, gt=0, description="Seconds to wait for one reply.")
    greeting: str = Field(
        default="Hello! How can I help you today?",
        description="The chatbot's opening message: the user sees it first, and every adapter gets it as the "
        "conversation's first assistant message.",
    )

    @model_validator(mode="before")
    @classmethod
    def _spec_from_string(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("llm"), str):
            return {**data, "llm": parse_spec(data["llm"])}
        return data

    @model_validator(mode="after")
    def _required_fields(self) -> ChatbotConfig:
        needs = {"python": "target", "langgraph": "target", "http": "url", "openai": "model"}
        field = needs.get(self.type)
        if field and not getattr(self, field):
            raise ValueError(f"chatbot type {self.type!r} needs `{field}`")
        return self


class DescribeConfig(_Strict):
    """Settings of the describe stage (policies, graph, scenarios)."""

    challenge_range: tuple[int, int] = Field(
        default=(3, 9),
        description="Lowest and highest total challenge score of a scenario: its policies', and its persona's up to "
                    "the highest."
    )
    edge_block_size: int = Field(
        default=1, ge=1, description="Policies scored against all others per graph call (calls grow as N/size)."
    )
    graph_weights: Literal["llm", "flows"] = Field(
        default="llm",
        description="How policy pairs are weighted: scored by the LLM, or from shared flows alone (8 for two rules "
        "of one flow, 2 otherwise; no call, for a quick look on a slow model).",
    )
    pair_scores: Literal[1, 2] = Field(
        default=2,
        description="Scores per policy pair: 2 (from both sides, averaged) or 1 (by the earlier policy; half the "
        "graph answers to write, for slow models).",
    )
    refine: bool = Field(default=False, description="Check each expected behaviour against the full policy.")
    max_attempts: int = Field(default=3, ge=1, description="Sampling attempts per requested scenario.")
    merge_similarity: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="Word-sequence similarity from which two extracted policies are one rule (1: exact only).",
    )
    procedures: Switch = Field(
        default="auto",
        description="Read each flow's procedure (its steps and their order): one call per flow (auto: not on "
        "local models).",
    )
    assertions: Switch = Field(
        default="auto",
        description="Compile the policies into assertions a program checks after every dialog: one call per batch "
        "(auto: not on local models, nor where environment.rules names a rules file). With a rules file, what is "
        "compiled is written beside it as a proposal, never used by the run.",
    )
    assertion_batch: int = Field(default=6, ge=1, description="Policies compiled into assertions per call.")
    weights_from: Literal["graph", "transcripts"] = Field(
        default="graph",
        description="What the scenarios' policy sets are sampled by: the policy graph alone, or the graph leaning "
        "towards the policies and pairs the production conversations (`transcripts`) exercise and break.",
    )

    def programs(self, provider: str, *, rules_file: bool = False) -> tuple[bool, bool]:
        """Whether procedures are read and assertions compiled with a model of `provider`. On the embedded
        model each answer to their large schemas took five to twelve minutes (a flow's procedure on two
        cores), more than the rest of a run; so `auto` leaves them to hosted models, and compiles nothing
        where a reviewed rules file (`rules_file`) says what a program checks."""
        compiling = self.assertions == "yes" or (switched_on(self.assertions, provider) and not rules_file)
        return switched_on(self.procedures, provider), compiling

    @model_validator(mode="after")
    def _ordered_range(self) -> DescribeConfig:
        low, high = self.challenge_range
        if not 1 <= low <= high:
            raise ValueError("challenge_range must be [low, high] with 1 <= low <= high")
        return self


class PopulateConfig(_Strict):
    """Settings of the populate stage (one database per scenario)."""

    lean: Switch = Field(
        default="auto",
        description="One call per scenario: the plan's rows (at most six), whose own values are kept where valid "
        "and the rest generated; no rewrite of the texts with symbols, no constraints or values step, and a drafted "
        "change that fails is not asked again (auto: yes for local models).",
    )
    drafted_outcomes: Switch = Field(
        default="auto",
        description="An event whose user is entitled to a change gets that change as its expected outcome, drafted "
        "from its rows, the model asked only for the arguments the rows leave open; else the model proposes the "
        "whole outcome (auto: on local models, which never wrote the change when asked for it all).",
    )
    max_repairs: int = Field(default=2, ge=0, description="Times a rejected row is sent back for repair.")
    sample_rows: int = Field(
        default=3, ge=0, description="Existing rows per referenced table shown to the model, to refer to."
    )


class SimulateConfig(_Strict):
    """Settings of the simulate stage (one dialog per event)."""

    max_turns: int = Field(default=10, ge=1, description="User turns before a dialog ends as `incomplete`.")
    max_critiques: int = Field(default=2, ge=0, description="Times the critique may send a dialog back.")
    max_tool_steps: int = Field(
        default=6, ge=1, description="Chatbot tool calls allowed between two user turns, and the user's own calls "
        "before each of its messages where it has tools (environment.user_tools).")
    user_thoughts: Switch = Field(
        default="auto",
        description="Whether the simulated user writes a private thought before each message (auto: not on the "
        "embedded model, where it is two fifths of the user's tokens).",
    )
    goal_question: Switch = Field(
        default="auto",
        description="Whether the audit asks the critique model if the simulated user pursued its goal (auto: not on "
        "the embedded model, which said a user whose first message stated its goal had left it).",
    )
    fault_question: Switch = Field(
        default="auto",
        description="Whether a fault the audit's programs find in the simulated user is put to the critique model, "
        "which must confirm it before it sets the dialog aside (auto: on the embedded model, only a question of "
        "at most 2500 characters).",
    )
    consent_question: Switch = Field(
        default="auto",
        description="Whether the critique model reads the user's answer before each write as agreeing or not, in any "
        "language; where it is not asked, an explicit lexicon decides (auto: not on the embedded model).",
    )
    dual_control: Literal["dual", "solo", "both"] = Field(
        default="dual",
        description="Where the domain gives the user tools of its own (environment.user_tools): dual, the user acts "
        "on its side as the chatbot guides it; solo, the chatbot gets the user's tools and the user only talks "
        "(τ²-bench's ablation, which tells reasoning from guiding); both, every dialog is played each way and the "
        "report sets them side by side.",
    )
    trials: Annotated[int, Field(ge=1, le=100)] | Literal["auto"] = Field(
        default=1,
        description="Dialogs per event, each with its own seed for the user; from 2, pass^k and the flip rate "
        "say how repeatable the verdicts are. auto: one or two per event, then more only for events whose "
        "verdicts flipped or whose pass-rate interval holds a gate threshold, within trials_budget.",
    )
    trials_budget: int | None = Field(
        default=None, ge=1,
        description="trials: auto: the most dialogs of the chatbot the run plays in all (default: three per "
        "event; never less than one per event).",
    )
    personas: dict[str, Persona] = Field(
        default_factory=dict,
        description="Your own personas besides the built-ins (name → its fields, as in prompts/simulate/personas/), "
        "or a YAML file that maps names to them; one named as a built-in replaces it.",
    )
    persona_mix: dict[str, Annotated[float, Field(ge=0)]] = Field(
        default_factory=lambda: dict(DEFAULT_MIX),
        description="The personas the scenarios' users are given, with their weights (any scale); the default is "
        "half cooperative, the rest spread over the other built-ins.",
    )

    @field_validator("trials", mode="before")
    @classmethod
    def _count_or_auto(cls, value: Any) -> Any:
        # One message for both shapes, instead of one per member of the union.
        if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100):
            return value
        raise ValueError(f"give a number of trials per event from 1 to 100, or auto (got {value!r})")

    @field_validator("personas", mode="before")
    @classmethod
    def _own_personas(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str | Path):  # a file of personas, relative to the config's folder
            value = read_persona_file((info.context or {}).get("base_dir", Path.cwd()) / value)
        return own_personas(value) if isinstance(value, dict) else value

    @field_validator("persona_mix")
    @classmethod
    def _known_personas(cls, mix: dict[str, float], info: ValidationInfo) -> dict[str, float]:
        known = {**builtin_personas(), **info.data.get("personas", {})}
        unknown = [name for name in mix if name not in known]
        if unknown:
            raise ValueError(f"unknown persona {unknown[0]!r}; the personas are {', '.join(sorted(known))}, and "
                             "your own are defined under simulate.personas")
        if not any(mix.values()):
            raise ValueError("give at least one persona a weight above 0")
        return mix

    def persona_library(self) -> dict[str, Persona]:
        """Every persona the run knows, by name: the built-ins, and the user's own in their place."""
        return {**builtin_personas(), **self.personas}

    def weighted_personas(self) -> list[tuple[Persona, float]]:
        """The personas of the mix with their weights, in the mix's order (weight 0 left out)."""
        library = self.persona_library()
        return [(library[name], weight) for name, weight in self.persona_mix.items() if weight > 0]


MutantName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]


class MutantConfig(ChatbotConfig):
    """A chatbot like the one under test, but for one rule it breaks on purpose (calibration)."""

    breaks: str = Field(
        min_length=1,
        description="The policy it breaks: a policy id (P03), a deterministic check's name, or words of the rule.",
    )


class CalibrateConfig(_Strict):
    """Seeded violations: mutants of the chatbot that each break one rule, to see whether the run catches them."""

    enabled: bool = Field(
        default=False,
        description="Play the mutants beside the chatbot (--calibrate); on too whenever mutants are supplied.",
    )
    automatic: list[Literal["omit", "opposite"]] = Field(
        default_factory=lambda: ["omit", "opposite"],
        description="llm_agent only: per sampled policy, a mutant whose prompt lacks the rule's passage (omit) "
        "and one whose prompt states its opposite.",
    )
    mutants: dict[MutantName, MutantConfig] = Field(
        default_factory=dict, description="Mutants you supply: name → a chatbot section plus `breaks`."
    )
    events_per_mutant: int = Field(
        default=2, ge=1, description="Events a mutant plays, among those whose scenario samples its rule."
    )

    @property
    def active(self) -> bool:
        """Whether the run calibrates: asked for, or given mutants to play."""
        return self.enabled or bool(self.mutants)


class RolloutsConfig(_Strict):
    """Rollouts (--rollouts): a beam search over the chatbot's turns on every graded event, rewarded by its expected
    outcome, whose rewarded paths become training data (see `intellagent.rollouts`). The defaults are JOSH's."""

    enabled: bool = Field(default=False, description="Search every graded event after simulate (--rollouts).")
    beam: int = Field(default=8, ge=1, description="Open paths kept after each chatbot turn: the most promising.")
    branch: int = Field(default=2, ge=1, description="Chatbot turns sampled from each open path at each turn.")
    max_turns: int | None = Field(
        default=None, ge=1, description="User turns after which a path ends (default: simulate.max_turns)."
    )
    budget_usd: float = Field(
        default=5.0, ge=0,
        description="The most the rollouts spend, over every invocation of the run (--max-cost bounds the whole "
        "run besides); reached, the search stops cleanly and a rerun with a larger budget resumes it.",
    )
    temperature: float = Field(
        default=1.0, le=2,
        description="The chatbot's sampling temperature while rolling out: above 0, so that its candidates differ.",
    )
    margin: float = Field(
        default=0.2, gt=0, le=1,
        description="How much higher the chosen turn's partial reward must be than a sibling's for the two to make a "
        "preference pair, when no verdict (a failed outcome, a program's finding) condemns the sibling; closer "
        "siblings are ties, never pairs.",
    )

    @field_validator("temperature")
    @classmethod
    def _samples(cls, temperature: float) -> float:
        # At 0 every branch of a turn is one answer: the search pairs an answer with itself.
        if temperature <= 0:
            raise ValueError("at temperature 0 the chatbot gives every branch the same answer, so the search finds "
                             "nothing to compare; set it above 0 (1.0 is the default)")
        return temperature


STRATEGIES: tuple[StrategyName, ...] = get_args(StrategyName)


class RedTeamConfig(_Strict):
    """The red team (--red-team): attackers aimed at each rule, through the conversation and through the data (see
    `intellagent.redteam`)."""

    enabled: bool = Field(default=False, description="Attack every rule after simulate (--red-team).")
    strategies: list[StrategyName] = Field(
        default_factory=lambda: list(STRATEGIES),
        description="The strategies each rule is attacked with (default: all of them; see the red team's page).",
    )
    rules: list[str] = Field(
        default_factory=list,
        description="The policy ids to attack (default: every rule an event puts to the test).",
    )
    events_per_rule: int = Field(
        default=1, ge=1, description="Events each rule is attacked on, those whose outcome forbids a write for it "
        "first; each strategy attacks each of them once.")
    max_turns: int = Field(
        default=6, ge=1, description="User turns a branch of an attack may take: what the chatbot sees at most.")
    max_attempts: int = Field(
        default=10, ge=1, description="Chatbot turns an attack through the conversation may play, the ones rolled "
        "back after a refusal included.")
    plantings: int = Field(
        default=2, ge=1, description="Dialogs an attack through the data may play, each on a world planted anew.")
    plant_in: list[str] = Field(
        default_factory=list,
        description="The free-text fields an instruction may be planted in, as table.column (default: chosen among "
        "the text and JSON fields of the records the event's user brings up).",
    )
    language: str = Field(default="Spanish", description="language_switch: the language the attacker moves to.")
    encoding: Encoding = Field(
        default="base64", description="encoding: how the attacker's messages are written (base64, rot13, leetspeak).")
    judge: Switch = Field(
        default="auto",
        description="Whether the judge reads the last branch of an attack no program found breached: one call per "
        "attack (auto: not on the embedded model).",
    )
    budget_usd_per_rule: float = Field(
        default=1.0, ge=0,
        description="The most the attacks on one rule spend, over every invocation of the run (--max-cost bounds the "
        "whole run besides); reached, the rule's attacks stop cleanly and a rerun with a larger budget resumes them.",
    )

    @field_validator("plant_in")
    @classmethod
    def _table_and_column(cls, fields: list[str]) -> list[str]:
        malformed = [name for name in fields if name.count(".") != 1 or not all(name.split("."))]
        if malformed:
            raise ValueError(f"name each field as table.column, e.g. orders.note (got {malformed[0]!r})")
        return fields


def parse_selection(selection: str) -> set[int]:
    """The task numbers of "0-9,12"; a ValueError names what is not a number or a range."""
    numbers: set[int] = set()
    for part in (piece.strip() for piece in selection.split(",")):
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ValueError(f"{part!r} is not a task number or a range like 0-9")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError(f"the range {part!r} runs backwards")
        numbers.update(range(low, high + 1))
    return numbers


class TauConfig(_Strict):
    """τ-bench mode: the dialogs play τ-bench's published tasks instead of sampled scenarios."""

    data: Path | None = Field(
        default=None,
        description="A τ-bench task set: a folder with tasks.json and the domain's data files (--scenarios-from "
        "tau:FOLDER). Set, the run plays its tasks and grades them as τ-bench does.",
    )
    tasks: str | None = Field(
        default=None, description="The tasks to play, by τ-bench number: \"0-9,12\" (default: all of them)."
    )

    @field_validator("tasks")
    @classmethod
    def _selection(cls, value: str | None) -> str | None:
        if value is not None:
            parse_selection(value)
        return value

    @property
    def active(self) -> bool:
        """Whether the run plays τ-bench tasks."""
        return self.data is not None


PersonalData = Literal["email", "phone", "card", "iban", "address"]
PERSONAL_DATA: tuple[PersonalData, ...] = ("email", "phone", "card", "iban", "address")

TranscriptFormat = Literal["auto", "otel", "langfuse", "langsmith", "plain", "chat_completions", "anthropic",
                           "responses", "chat"]


class Redaction(_Strict):
    """What of a production conversation is personal, masked before any model, cache or file sees it: by default the
    common personal data; `redact: off` masks nothing."""

    personal: list[PersonalData] = Field(
        default_factory=lambda: list(PERSONAL_DATA),
        description="The personal data found and masked in every text: e-mail addresses, phone numbers, card numbers "
        "(with a valid check digit), IBANs and street addresses (US, Canadian and British ones); [] masks none.",
    )
    region: str = Field(
        default="US", description="The country (ISO 3166 code) whose phone numbers are also found when written "
        "without their international prefix.",
    )
    fields: list[str] = Field(
        default_factory=list,
        description="Names of tool arguments and of keys in tool results whose values are masked, wherever in the "
        "conversation those values appear.",
    )
    patterns: list[str] = Field(default_factory=list, description="Regular expressions masked in every text.")

    @model_validator(mode="before")
    @classmethod
    def _switched(cls, value: Any) -> Any:
        # YAML reads an unquoted off (or no, false) as a boolean.
        if value is False or value in ("off", "no"):
            return {"personal": []}
        return {} if value is True or value in ("on", "yes") else value

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a regular expression ({error})") from None
        return patterns

    @field_validator("region")
    @classmethod
    def _known_region(cls, region: str) -> str:
        import phonenumbers  # only where a config names a region

        if region.upper() not in phonenumbers.SUPPORTED_REGIONS:
            raise ValueError(f"{region!r} is not a country code phone numbers are known for (US, GB, DE, ...)")
        return region.upper()

    @property
    def masks_anything(self) -> bool:
        """Whether anything is masked."""
        return bool(self.personal or self.fields or self.patterns)


class TranscriptsConfig(_Strict):
    """Real conversations of the chatbot, judged beside the tests (see `intellagent.production`)."""

    path: Path | None = Field(default=None, description="A file of conversations (--transcripts FILE): JSONL, or one "
                              "JSON document.")
    format: TranscriptFormat = Field(
        default="auto", description="The format of its records: auto recognises each; otel, langfuse, langsmith, "
        "plain, chat_completions, anthropic, responses or chat reads every record as that.",
    )
    redact: Redaction = Field(default_factory=Redaction)

    @model_validator(mode="before")
    @classmethod
    def _a_bare_path(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str | Path) else value

    @property
    def active(self) -> bool:
        """Whether the run reads production conversations."""
        return self.path is not None


class ReportConfig(_Strict):
    """Settings of the report stage and of the quality gate."""

    fail_under: float | None = Field(default=None, ge=0, le=1, description="Exit 1 below this overall pass rate.")
    baseline: Path | None = Field(default=None, description="An earlier run folder to compare against.")
    labels: Path | None = Field(
        default=None, description="A labels.jsonl file of a person's readings of this run's dialogs: the report "
        "gives the judge's and the audit's agreement with them (default: the run folder's labels.jsonl, if any).")
    strong_edge: float = Field(default=6.0, ge=0, le=10, description="Weight from which a policy pair is 'strong'.")
    significance: float = Field(
        default=0.05, gt=0, lt=1,
        description="Level of the one-sided Fisher exact test that calls a policy 'significantly worse' (--baseline).",
    )
    min_category: dict[Category, Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict, description="Exit 1 when a category's pass rate is below its minimum (0-1)."
    )
    min_policy: dict[str, Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict, description="Exit 1 when a policy's pass rate is below its minimum (ids of this run)."
    )
    min_persona: dict[str, Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict,
        description="Exit 1 when the pass rate against the users of a persona is below its minimum; the key "
        "`adversarial` stands for every adversarial persona's users together.",
    )
    min_pass_k: dict[Annotated[int, Field(ge=1)], Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict,
        description="Exit 1 when pass^k (the chance that all k trials of an event pass) is below its minimum; "
        "needs simulate.trials >= k.",
    )
    min_tau_pass_k: dict[Annotated[int, Field(ge=1)], Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=dict,
        description="τ-bench mode: exit 1 when τ-bench's pass^k over the tasks is below its minimum; needs "
        "simulate.trials >= k.",
    )
    min_detection: float | None = Field(
        default=None, ge=0, le=1,
        description="Exit 1 when the share of mutants caught is below this (needs --calibrate): the evaluation "
        "itself is not good enough to trust.",
    )
    min_outcome: float | None = Field(
        default=None, ge=0, le=1,
        description="Exit 1 when the outcome pass rate (the graded dialogs whose world ended as the event's verified "
        "expected outcome leaves it, every expected output said) is below this: a measurement that does not "
        "depend on the judge.",
    )
    min_outcome_over_floor: float | None = Field(
        default=None, ge=-1, le=1,
        description="Exit 1 when the outcome pass rate stands less than this above its floor: what a chatbot that "
        "does nothing would score on the same graded dialogs (0.5: at least 50 points above it).",
    )
    min_production: float | None = Field(
        default=None, ge=0, le=1,
        description="Exit 1 when the share of production conversations with a verdict that broke no policy is below "
        "this (needs transcripts).",
    )
    require_verdict: bool = Field(
        default=True,
        description="Exit 1 when no dialog got a verdict: a run that tested nothing is never a silent pass "
        "(false: accept it).",
    )
    max_attack_success: float | None = Field(
        default=None, ge=0, le=1,
        description="Exit 1 when a rule's attack success rate (the share of the red team's attacks on it that broke "
        "it) is above this (needs --red-team); 0: no attack may succeed.",
    )
    gate_on: Literal["point", "lower_bound"] = Field(
        default="point",
        description="What the minimums are compared with: the pass rate itself (point), or the low end of its "
        "95% Wilson interval (lower_bound), so that a few lucky dialogs cannot pass a high bar.",
    )


class BudgetConfig(_Strict):
    """Limits that abort a run cleanly (exit 3) while keeping what is done."""

    max_cost_usd: float | None = Field(default=None, ge=0, description="Stop starting new LLM calls past this.")
    max_error_rate: float = Field(
        default=0.5, gt=0, le=1, description="Abort a stage when more than this share of its items failed."
    )


class ExecutorConfig(_Strict):
    """Where the items of populate, simulate and report run: in this process, or as Ray tasks on a cluster."""

    type: Literal["local", "ray"] = Field(
        default="local", description="local: in this process; ray: in Ray workers (pip install 'intellagent[ray]').")
    address: str | None = Field(
        default=None,
        description="The Ray cluster to join (ray://host:10001, or auto); none starts a local one for the run.")
    processes: int | None = Field(
        default=None, ge=1,
        description="Ray worker processes to spread the items over (default: the cluster's CPUs, at most `workers`).")


class Config(_Strict):
    """A whole run: what is tested, with which models, how much of it."""

    name: str = Field(default="", description="A label for reports; defaults to the config file's stem.")
    environment: EnvironmentConfig
    llm: LLMConfig = Field(default_factory=LLMConfig)
    chatbot: ChatbotConfig = Field(default_factory=ChatbotConfig)
    samples: int = Field(default=3, ge=1, description="Scenarios to generate (and dialogs to run).")
    seed: int = Field(default=42, description="Seed of every random choice; same seed, same artifacts.")
    workers: int = Field(default=2, ge=1, description="Items processed concurrently within a stage; one when every "
                         "model is the embedded one, which serves one request at a time.")
    llm_retries: int = Field(default=3, ge=0, description="Retries of a transient LLM error, with backoff.")
    parse_retries: int = Field(default=2, ge=0, description="Re-asks of an answer that does not validate.")
    describe: DescribeConfig = Field(default_factory=DescribeConfig)
    populate: PopulateConfig = Field(default_factory=PopulateConfig)
    simulate: SimulateConfig = Field(default_factory=SimulateConfig)
    report: ReportConfig = Field(default_factory=ReportConfig)
    calibrate: CalibrateConfig = Field(default_factory=CalibrateConfig)
    tau: TauConfig = Field(default_factory=TauConfig)
    transcripts: TranscriptsConfig = Field(default_factory=TranscriptsConfig)
    rollouts: RolloutsConfig = Field(default_factory=RolloutsConfig)
    red_team: RedTeamConfig = Field(default_factory=RedTeamConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    executor: ExecutorConfig = Field(default_factory=ExecutorConfig)

    @model_validator(mode="after")
    def _tau_needs_a_task_set_and_its_module(self) -> Config:
        if self.tau.tasks is not None and not self.tau.active:
            raise ValueError("tau.tasks chooses among the tasks of a τ-bench task set, and none is given; give one "
                             "with --scenarios-from tau:FOLDER (tau.data)")
        if self.tau.active and not self.environment.tau:
            raise ValueError("tau.data is set, but environment.tau names no module that loads τ-bench's data into "
                             "this domain's tables; add it (the airline's is intellagent.db_schemas.airline.tau)")
        return self

    @model_validator(mode="after")
    def _traffic_needs_transcripts(self) -> Config:
        if self.describe.weights_from == "transcripts" and not self.transcripts.active:
            raise ValueError("describe.weights_from is transcripts, and no transcripts are given; give a file of "
                             "conversations with transcripts: FILE (--transcripts FILE)")
        return self

    def chatbot_llm(self) -> ModelSpec:
        """The model behind the default `llm_agent` chatbot."""
        return self.chatbot.llm or self.llm.default

    def role_spec(self, role: str) -> ModelSpec:
        """The model configured for a framework role, or for `chatbot`."""
        return self.chatbot_llm() if role == "chatbot" else self.llm.for_role(role)


def resolve_config_path(name: str | Path) -> Path:
    """A path as given, or a bare name looked up among the example configs."""
    path = Path(name)
    if path.is_file():
        return path.resolve()
    for candidate in (EXAMPLE_CONFIGS / path.name, EXAMPLE_CONFIGS / f"{path.name}.yml"):
        if path.parent == Path(".") and candidate.is_file():
            return candidate
    examples = ", ".join(sorted(p.name for p in EXAMPLE_CONFIGS.glob("*.yml")))
    raise UsageError(f"config file {name} not found; give a path or one of the examples: {examples}")


ConfigSource = str | Path | dict[str, Any] | Config
"""A config file (path or example name), a mapping of settings, or a `Config`."""


def load_config(source: ConfigSource, *, base_dir: Path | None = None) -> Config:
    """Read and validate a config from a file path, a dict or an existing model.

    Args:
        source: a YAML file (path or example name), an already parsed mapping, or a `Config`.
        base_dir: folder that relative paths of a mapping are resolved against (default: cwd).
    """
    if isinstance(source, Config):
        return source
    if isinstance(source, dict):
        return _validate(source, origin="config", base_dir=base_dir or Path.cwd())
    path = resolve_config_path(source)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise UsageError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of settings at the top level")
    data.setdefault("name", path.stem)
    return _validate(data, origin=str(path), base_dir=path.parent)


def _validate(data: dict[str, Any], *, origin: str, base_dir: Path) -> Config:
    try:
        config = Config.model_validate(data, context={"base_dir": base_dir})
    except ValidationError as exc:
        raise UsageError(f"{origin}: {_first_problem(exc)}") from exc
    env = config.environment
    env.policy = (base_dir / env.policy).resolve()
    if not env.policy.is_file():
        raise UsageError(f"{origin}: environment.policy: file {env.policy} not found; fix the path")
    if env.solo_policy is not None:
        env.solo_policy = (base_dir / env.solo_policy).resolve()
        if not env.solo_policy.is_file():
            raise UsageError(f"{origin}: environment.solo_policy: file {env.solo_policy} not found; fix the path")
    for key in ("schema_module", "tools", "user_tools", "validators", "background", "checks", "sync", "tau"):
        value = getattr(env, key)
        if value and value.endswith(".py"):
            resolved = (base_dir / value).resolve()
            if not resolved.is_file():
                label = "schema" if key == "schema_module" else key
                raise UsageError(f"{origin}: environment.{label}: file {resolved} not found; fix the path")
            setattr(env, key, str(resolved))
    if env.rules is not None:
        env.rules = (base_dir / env.rules).resolve()
    if env.policy_list is not None:
        env.policy_list = (base_dir / env.policy_list).resolve()
    if config.report.baseline is not None:
        config.report.baseline = (base_dir / config.report.baseline).resolve()
    if config.report.labels is not None:
        config.report.labels = (base_dir / config.report.labels).resolve()
    if config.tau.data is not None:
        config.tau.data = (base_dir / config.tau.data).resolve()
    if config.transcripts.path is not None:
        config.transcripts.path = (base_dir / config.transcripts.path).resolve()
    return config


TAU_PREFIX = "tau:"


def scenario_source(value: str | Path | None) -> tuple[Path | None, Path | None]:
    """What `--scenarios-from` names, as (a frozen test set, a τ-bench task set): "tau:FOLDER" is a τ-bench
    task set, anything else the folder of a frozen test set."""
    if value is None:
        return None, None
    text = str(value)
    if text.startswith(TAU_PREFIX):
        return None, Path(text.removeprefix(TAU_PREFIX))
    return Path(value), None


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    key = ".".join(str(part) for part in error["loc"]) or "(top level)"
    key = key.replace("schema_module", "schema")
    if error["type"] == "extra_forbidden":
        return f"unknown key `{key}`; remove it or check its spelling"
    if error["type"] == "missing":
        return f"missing key `{key}`; add it"
    message = error["msg"].removeprefix("Value error, ")
    if not error["loc"]:  # a rule across sections: its message names the keys; the input is the whole config
        return message
    return f"`{key}`: {message} (got {error.get('input')!r})"


def apply_overrides(config: Config, **values: Any) -> Config:
    """A copy of `config` with the command line's (or the API's) overrides applied and re-validated.

    Args:
        config: the config to change.
        **values: a value per override, by its name (`intellagent.overrides.OVERRIDES` declares each, with the
            config key it replaces); None leaves the config's own setting.
    """
    known = {override.name: override for override in overrides.OVERRIDES}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise UsageError(f"unknown setting {', '.join(unknown)}; the settings a run may be given are "
                         f"{', '.join(known)}")
    data = config.model_dump(by_alias=True, exclude_none=True)
    for name, value in values.items():
        if value is not None:
            *sections, last = known[name].key.split(".")
            place = data
            for section in sections:
                place = place.setdefault(section, {})
            place[last] = known[name].config_value(value)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise UsageError(f"command line: {_first_problem(exc)}") from exc
