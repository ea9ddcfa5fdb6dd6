"""Typed registries with helpful errors, and the registry of benchmark tasks.

Task entries name their generator and evaluator modules as strings so that importing the
registry (and so ``srm-bench --help``) never imports torch or a task implementation.
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, Iterator, Protocol, TypeVar

from .errors import SrmBenchError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name -> entry mapping whose unknown-name error lists the valid names.

    Example:
        >>> r = Registry[int]("colour"); r.register("red", 1); r.get("red")
        1
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str, entry: T) -> T:
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T:
        """Return the entry, or raise SrmBenchError naming the valid ones and the closest."""
        try:
            return self._entries[name]
        except KeyError:
            valid = ", ".join(self._entries)
            close = difflib.get_close_matches(name, list(self._entries), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise SrmBenchError(f"unknown {self.kind} {name!r}; valid: {valid}.{hint}") from None

    def names(self) -> list[str]:
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)


# The catalogue of the shipped baseline models (``srm-bench models``), named as a string like the tasks' code, so that a
# subsystem that filters by it (the leaderboard's ``--shipped``) reaches it through the core, not the baselines.
SHIPPED_MODELS = "srm_bench.baselines.pretrained:catalogue"


def shipped_models() -> dict[str, dict[str, Any]]:
    """The shipped baseline models' catalogue entries by name (file, sha256, task, training record, measured rows)."""
    return resolve_entry_point(SHIPPED_MODELS)()


def resolve_entry_point(ref: str) -> Any:
    """The object that a ``"module:attribute"`` string names (imported on call, not before)."""
    module, sep, attr = ref.partition(":")
    if not sep or not module or not attr:
        raise SrmBenchError(f"entry point {ref!r} is not of the form 'module:attribute'")
    try:
        return getattr(importlib.import_module(module), attr)
    except AttributeError:
        raise SrmBenchError(f"entry point {ref!r}: module {module} has no attribute {attr!r}") from None


class TaskPlugin(Protocol):
    """What a task's two modules provide; the core reads nothing else from them.

    The generator module (``TaskSpec.generator``) has:
        GENERATOR: a :class:`srm_bench.generation.TaskGenerator` instance.
        CLI_OPTIONS: optional list of extra ``click.Option`` for ``srm-bench generate <task>``;
            their values reach ``GENERATOR.make_config(**options)``.
    The evaluator module (``TaskSpec.evaluator``) has:
        EVALUATOR: a :class:`srm_bench.evaluation.TaskEvaluator` instance.
        READERS: optional ``{name: TaskEvaluator}`` picked by ``evaluate --reader``.
    Everything else (oracle, evaluator training, dependency graph) is named by a
    ``"module:function"`` string in :class:`TaskSpec`, so a task that lacks it names nothing.
    See docs/adding-a-task.md.
    """

    GENERATOR: Any
    EVALUATOR: Any


@dataclass(frozen=True)
class TaskSpec:
    """Every fact about one benchmark task that a subsystem needs, in one place.

    Entry points are ``"module:attribute"`` strings resolved on use, so importing the
    registry imports neither torch nor the task's code.
    """

    name: str
    generator: str  # module with GENERATOR (and optional CLI_OPTIONS), see TaskPlugin
    evaluator: str  # module with EVALUATOR (and optional READERS), see TaskPlugin
    splits: tuple[str, ...]  # all splits, training first
    test_splits: tuple[str, ...]  # splits that have a canonical, hash-pinned version
    image_shape: tuple[int, int, int]  # (H, W, C) of one image, uint8
    patch_size: int  # side of one spatial variable in pixels
    conditional: bool  # samples refer to a puzzle of the test split (Sudoku) or not
    summary: str = ""
    graph: str | None = None  # "module:function" -> (P, P) bool torch tensor of dependent patches
    oracle: str | None = None  # "module:attribute" -> click command of ``srm-bench oracle <task>``
    train_evaluator: str | None = None  # "module:attribute" -> click command of ``srm-bench train-evaluator <task>``
    # "module:function" -> (items, side, patch) -> (N, P) bool: the patches that hold each item's answer (Counting:
    # the two numbers), for asking a model to draw the answer into an otherwise given image (the training gauge)
    answer_patches: str | None = None
    # The overlap of the paper's sequential rows where its table says only "+ Overlap" and its
    # text names the value (Even Pixels: 0.95, "a sweet spot"); 0 where its sequential rows have none.
    paper_overlap: float = 0.0
    # The overlap of the training gauge's predicted-order column; None: ``paper_overlap``. Counting: 0.95, since at
    # the gauge's NFE (256, one per patch) predicted order without overlap gives each patch one reverse step and
    # draws object-free images; with 0.95 each patch denoises over ~19 of them (Table 3's "+ overlap 0.95" rows).
    gauge_overlap: float | None = None

    @property
    def predicted_gauge_overlap(self) -> float:
        return self.paper_overlap if self.gauge_overlap is None else self.gauge_overlap

    @property
    def image_side(self) -> int:
        return self.image_shape[0]

    @property
    def channels(self) -> int:
        return self.image_shape[2]

    @property
    def num_patches(self) -> int:
        return (self.image_shape[0] // self.patch_size) * (self.image_shape[1] // self.patch_size)

    def check_split(self, split: str) -> str:
        if split not in self.splits:
            raise SrmBenchError(
                f"unknown split {split!r} for task {self.name!r}; valid: {', '.join(self.splits)}"
            )
        return split

    def generator_module(self) -> ModuleType:
        return importlib.import_module(self.generator)

    def evaluator_module(self) -> ModuleType:
        return importlib.import_module(self.evaluator)


TASKS: Registry[TaskSpec] = Registry("task")

TASKS.register(
    "sudoku",
    TaskSpec(
        name="sudoku",
        generator="srm_bench.generators.sudoku",
        evaluator="srm_bench.evaluators.sudoku",
        splits=("train", "easy", "medium", "hard"),
        test_splits=("easy", "medium", "hard"),
        image_shape=(252, 252, 1),
        patch_size=28,
        conditional=True,
        graph="srm_bench.baselines.schedules:sudoku_graph",
        oracle="srm_bench.generators.sudoku_oracle:oracle_command",
        train_evaluator="srm_bench.evaluators.train_sudoku:train_command",
        summary="MNIST Sudoku: complete a 9x9 grid of MNIST digits so every row, column and box holds 1-9",
    ),
)

for _shape in ("polygons", "stars"):
    TASKS.register(f"counting-{_shape}", TaskSpec(
        name=f"counting-{_shape}", generator=f"srm_bench.generators.counting_{_shape}",
        evaluator=f"srm_bench.evaluators.counting_{_shape}", splits=("train", "test"), test_splits=("test",),
        image_shape=(128, 128, 3), patch_size=8, conditional=False,
        train_evaluator=f"srm_bench.evaluators.train_counting:train_{_shape}",
        answer_patches="srm_bench.generators.counting:number_patches", gauge_overlap=0.95,
        summary=f"Counting {_shape.capitalize()}: N {_shape} of K vertices each plus the digits N and K"))


TASKS.register("even-pixels", TaskSpec(
    name="even-pixels", generator="srm_bench.generators.even_pixels", evaluator="srm_bench.evaluators.even_pixels",
    splits=("train", "test"), test_splits=("test",), image_shape=(32, 32, 3), patch_size=4, conditional=False,
    paper_overlap=0.95,
    summary="Even Pixels: 32x32 images with exactly 512 pixels of each of two complementary hues"))


def get_task(name: str) -> TaskSpec:
    """Look a task up by name (unknown names get a one-line error listing the valid ones)."""
    return TASKS.get(name)
