"""gpuc's targets as xdsl-opt / gpuc-opt `-t` outputs, derived from the target
registry: `-t ptx{sm=80}`, `-t spirv`, `-t native`, and `-t llvm{target=spirv}`.

Each output's options are its target's options plus `opt_level` and
`fp_contract`. They lower the module they are given, as it is after the `-p`
passes (a module the dialect pipeline has not finished first gets what
lowering needs: `lowering_passes`). Output is text: the target's `listing`
(PTX, SPIR-V assembly, host assembly), or LLVM IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass
from functools import cache, partial
from typing import IO, TYPE_CHECKING, Any, ClassVar, get_type_hints

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target as XdslTarget

from gpuc.targets import target_class, target_names

if TYPE_CHECKING:
    from gpuc.targets.base import Target

LOWERING_OPTIONS = ("opt_level", "fp_contract")
"""The compile options every output takes besides its target's."""


def _lowered(module: ModuleOp, target: str, stop_after: str, **options: Any) -> Any:
    from gpuc.driver import make_options, run

    return run(
        module, make_options(target, options), start="translate", stop_after=stop_after
    )


def _emit_listing(self: Any, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
    options = {f.name: getattr(self, f.name) for f in fields(self)}
    c = _lowered(module, self.name, "emit", **options)
    text = c.target.render(c.target.listing, c)
    output.write(text if isinstance(text, str) else text.decode())


def output_class(name: str) -> type[XdslTarget]:
    """The `-t` output of registered target `name`."""
    return _output_of(name, target_class(name))


@cache
def _output_of(name: str, cls: type[Target]) -> type[XdslTarget]:
    """Made once per (name, class): a name registered again gets a new one."""
    hints = get_type_hints(cls)
    own = [(f.name, hints[f.name], field(default=f.default)) for f in fields(cls)]
    from gpuc.driver import CompileOptions

    lowering = [
        (f.name, type(f.default), field(default=f.default))
        for f in fields(CompileOptions)
        if f.name in LOWERING_OPTIONS
    ]
    output = make_dataclass(
        f"{cls.__name__}Output",
        [*own, *lowering],
        bases=(XdslTarget,),
        frozen=True,
        namespace={
            "name": name,
            "emit": _emit_listing,
            "__doc__": f"{name}: {cls.listing} text.",
        },
    )
    return output


@dataclass(frozen=True)
class LLVMOutput(XdslTarget):
    """LLVM IR for `target` after `stage`: `link` shows the translation as it
    is (verified, before any LLVM pass), `optimize` the IR that code
    generation gets. `target` is a spec, e.g. `"ptx{sm=80}"`; empty: the
    module's `#gpuc.target`, else the default target."""

    name: ClassVar[str] = "llvm"
    target: str = ""
    stage: str = "optimize"
    opt_level: int = 3
    fp_contract: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from gpuc.driver import OptionError, make_options, run
        from gpuc.targets import configured_target, parse_target_spec

        if self.stage not in ("link", "optimize"):
            raise OptionError(f"stage={self.stage}: expected link or optimize")
        target = (
            parse_target_spec(self.target) if self.target else configured_target(module)
        )
        options = make_options(
            target.name,
            {
                **target.options(),
                "opt_level": self.opt_level,
                "fp_contract": self.fp_contract,
            },
        )
        c = run(module, options, start="translate", stop_after=self.stage)
        output.write(str(c.llvm_module) if self.stage == "link" else str(c.llvm_ir))


def output_factories() -> dict[str, Any]:
    """`-t` name -> factory of its output class, for every registered target."""
    factories: dict[str, Any] = {n: partial(output_class, n) for n in target_names()}
    factories["llvm"] = lambda: LLVMOutput
    return factories
