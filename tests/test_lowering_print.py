"""gpuc's translated functions print as llvmlite prints them
(gpuc.lowering.printing.Function), on real modules: the examples and the test
kernel files, translated for every target they compile for, every
instruction of every body compared."""

from __future__ import annotations

from pathlib import Path

import pytest
from llvmlite import ir
from xdsl.utils.exceptions import DiagnosticException

from gpuc.driver import make_options, run
from gpuc.lowering.context import translate_module
from gpuc.lowering.printing import Function

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/*_kernels.mlir")],
    key=lambda p: p.name,
)
TARGETS = ("ptx", "spirv", "native", "amdgpu")
REFUSED = {
    ("child_launch.mlir", "spirv"),
    ("child_launch.mlir", "native"),
    ("child_launch.mlir", "amdgpu"),
    ("vote_fence_kernels.mlir", "amdgpu"),
}
"""The files a target refuses with a diagnostic (a launch from the device is
ptx's only; an i32 ballot mask is too narrow for gfx90a's 64-lane
wavefronts): anything else that fails to compile fails the test."""


def translated(source: Path, target: str) -> ir.Module:
    """`source` through the dialect pipeline and translated for `target`."""
    c = run(source, make_options(target, {}), stop_after="dialect")
    assert c.module is not None
    return translate_module(c.module, c.target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_function_bodies_print_as_llvmlite_prints_them(
    source: Path, target: str
) -> None:
    if (source.name, target) in REFUSED:
        with pytest.raises(DiagnosticException):
            translated(source, target)
        return
    module = translated(source, target)
    bodies = [
        f for f in module.globals.values() if isinstance(f, Function) and f.blocks
    ]
    assert bodies
    for fn in bodies:
        ours: list[str] = []
        fn.descr_body(ours)
        theirs: list[str] = []
        ir.Function.descr_body(fn, theirs)
        assert "".join(ours) == "".join(theirs), fn.name
        assert_references_are_llvmlites(fn)


def assert_references_are_llvmlites(fn: ir.Function) -> None:
    """Each value's reference, as printing left it for its uses, is the one
    llvmlite makes."""
    for block in fn.blocks:
        for instruction in block.instructions:
            if not isinstance(instruction.type, ir.VoidType):
                made = instruction._get_reference()  # noqa: SLF001
                assert instruction.get_reference() == made


def test_each_printed_class_prints_its_variants_as_llvmlite_does() -> None:
    """The variants the examples may not reach: flags, fast-math flags,
    call, argument and tail attributes, calling conventions, variadic
    callees, alignment or none, several metadata attachments."""
    module = ir.Module(name="variants")
    f32, i32, ptr = ir.FloatType(), ir.IntType(32), ir.PointerType(addrspace=1)
    fn = Function(module, ir.FunctionType(f32, [f32, i32, ptr]), "f")
    x, n, p = fn.args
    variadic = ir.Function(module, ir.FunctionType(i32, [ptr], var_arg=True), "v")
    callee = ir.Function(module, ir.FunctionType(f32, [f32, ptr]), "g")
    callee.calling_convention = "spir_func"
    node = module.add_metadata([ir.MetaDataString(module, "m")])
    entry, loop, done = (fn.append_basic_block(name) for name in ("e", "l", "d"))
    b = ir.IRBuilder(entry)
    b.debug_metadata = node
    y = b.fadd(x, ir.Constant(f32, 0.5), flags=("fast",))
    b.fmul(x, x, name='a "quoted" name')
    b.fmul(x, x, name="a back\\slash")
    m = b.mul(n, n, flags=("nuw", "nsw"))
    b.fneg(y)
    b.call(callee, [y, p], tail="tail", fastmath=("nnan", "ninf"))
    b.call(callee, [y, p], attrs=("convergent",), arg_attrs={1: ("noalias",)})
    b.call(variadic, [p, n, y])
    b.call(callee, [y, p], cconv="fastcc")
    b.fcmp_ordered("<", x, y, flags=("fast",))
    b.icmp_signed("!=", m, n)
    c = b.icmp_unsigned("<", m, n)
    b.zext(c, i32)
    b.gep(p, [n, m], inbounds=False, source_etype=f32).set_metadata("extra", node)
    q = b.gep(p, [n], inbounds=True, source_etype=f32)
    b.load(q, typ=f32, align=4)
    b.load(q, typ=f32)
    b.store(y, q, align=8)
    b.store(y, q)
    b.debug_metadata = None
    b.cbranch(c, loop, done)
    b.position_at_end(loop)
    phi = b.phi(f32, flags=("fast",))
    phi.add_incoming(x, entry)
    phi.add_incoming(phi, loop)
    b.select(c, phi, x)
    b.branch(done)
    b.position_at_end(done)
    b.ret(y)
    void = Function(module, ir.FunctionType(ir.VoidType(), []), "r")
    ir.IRBuilder(void.append_basic_block("e")).ret_void()
    for function in (fn, void):
        ours: list[str] = []
        function.descr_body(ours)
        theirs: list[str] = []
        ir.Function.descr_body(function, theirs)
        assert "".join(ours) == "".join(theirs)
        assert_references_are_llvmlites(function)
