"""gpuc's targets as xdsl-opt / gpuc-opt `-t` targets: `-t ptx{sm=80}`,
`-t spirv`, `-t native`, `-t llvm{target=spirv}`.

They lower the module they are given, as it is after the `-p` passes: the
dialect pipeline is a pass (`-p gpuc-pipeline`), so it is not run again here.
Output is text: PTX, SPIR-V assembly (spirv-dis), host assembly, LLVM IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target as XdslTarget


def lowered(module: ModuleOp, target: str, stop_after: str, **options: Any) -> Any:
    from gpuc.driver import make_options, run

    return run(
        module, make_options(target, options), start="translate", stop_after=stop_after
    )


@dataclass(frozen=True)
class PTXOutput(XdslTarget):
    """PTX text."""

    name: ClassVar[str] = "ptx"
    sm: int = 90
    ptx_isa: int | None = None
    opt_level: int = 3
    fp_contract: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        c = lowered(
            module,
            "ptx",
            "emit",
            sm=self.sm,
            ptx_isa=self.ptx_isa,
            opt_level=self.opt_level,
            fp_contract=self.fp_contract,
        )
        output.write(c.artefact)


@dataclass(frozen=True)
class SPIRVOutput(XdslTarget):
    """SPIR-V assembly (the binary, disassembled by spirv-dis)."""

    name: ClassVar[str] = "spirv"
    opt_level: int = 3
    fp_contract: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        c = lowered(
            module,
            "spirv",
            "emit",
            opt_level=self.opt_level,
            fp_contract=self.fp_contract,
        )
        output.write(c.target.emit_text(c.artefact))


@dataclass(frozen=True)
class NativeOutput(XdslTarget):
    """Host assembly."""

    name: ClassVar[str] = "native"
    opt_level: int = 3
    fp_contract: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        c = lowered(
            module,
            "native",
            "optimize",
            opt_level=self.opt_level,
            fp_contract=self.fp_contract,
        )
        output.write(c.machine.emit_assembly(c.llvm_module))


@dataclass(frozen=True)
class LLVMOutput(XdslTarget):
    """LLVM IR for `target` (ptx, spirv or native) after `stage`: `link` shows
    the translation as it is (verified, before any LLVM pass), `optimize` the
    IR that code generation gets."""

    name: ClassVar[str] = "llvm"
    target: str = "ptx"
    stage: str = "optimize"
    opt_level: int = 3
    fp_contract: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.stage not in ("link", "optimize"):
            from gpuc.driver import OptionError

            raise OptionError(f"stage={self.stage}: expected link or optimize")
        c = lowered(
            module,
            self.target,
            self.stage,
            opt_level=self.opt_level,
            fp_contract=self.fp_contract,
        )
        output.write(str(c.llvm_module) if self.stage == "link" else c.llvm_ir)
