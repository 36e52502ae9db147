"""The gpuc dialect's Python API: every op built with its constructor, verified,
printed in the documented text format and parsed back through
`gpuc.context.make_context()`; the verifiers' diagnostics; and the per-module
symbol table cache of `gpuc.dialects.symbols`, which must never answer stale.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    f16,
    f32,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gpuc.context import make_context
from gpuc.dialects import symbols
from gpuc.dialects.attrs import (
    AddressSpace,
    AtomicKind,
    Dim,
    FuncPtrType,
    InlineHint,
    JobAttr,
    MemoryOrder,
    PtrType,
    Role,
)
from gpuc.dialects.deferred import (
    DeferredAddrOp,
    DeferredCallOp,
    DeferredKernelOp,
    DeferredLaunchOp,
)
from gpuc.dialects.fence import FenceOp, FenceScope
from gpuc.dialects.functions import (
    CallIndirectOp,
    CallOp,
    FuncAddrOp,
    FuncOp,
    LaunchOp,
    ReturnOp,
)
from gpuc.dialects.gpuc import GPUC
from gpuc.dialects.index import (
    BarrierOp,
    BlockDimOp,
    BlockIdOp,
    GlobalIdOp,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from gpuc.dialects.matrix import (
    ElementwiseKind,
    FragmentType,
    MatrixElementwiseOp,
    MatrixLoadOp,
    MatrixMmaOp,
    MatrixOperand,
    MatrixSplatOp,
    MatrixStoreOp,
)
from gpuc.dialects.memory import (
    AddrSpaceCastOp,
    AtomicCmpXchgOp,
    AtomicRMWOp,
    LoadOp,
    OffsetOp,
    PrivateAllocOp,
    SharedAllocOp,
    StoreOp,
)
from gpuc.dialects.printf import PrintfOp
from gpuc.dialects.subgroup import (
    BallotOp,
    NumSubgroupsOp,
    ReduceKind,
    ShuffleMode,
    ShuffleOp,
    SubgroupIdOp,
    SubgroupReduceOp,
    SubgroupSizeOp,
    VoteKind,
    VoteOp,
)

F32_GLOBAL = PtrType(f32, AddressSpace.GLOBAL)
I32_GLOBAL = PtrType(i32, AddressSpace.GLOBAL)
F32_TO_F32 = FunctionType.from_lists([f32], [f32])


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def generic(op: Operation) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(op)
    return stream.getvalue()


def roundtrip(module: ModuleOp) -> str:
    """Verify, print, parse back, verify again; the text must be a fixpoint."""
    module.verify()
    text = str(module)
    again = parse(text)
    again.verify()
    assert str(again) == text
    assert again.is_structurally_equivalent(module)
    assert parse(generic(module)).is_structurally_equivalent(module)
    return text


def build_every_op() -> ModuleOp:
    """One module holding every gpuc op, built with the ops' constructors."""
    kernel = FuncOp(
        "k", ([f32, F32_GLOBAL, I32_GLOBAL, i32, IndexType()], []), Role.KERNEL
    )
    args = kernel.body.block.args
    for arg, hint in zip(args, "axyng", strict=True):
        arg.name_hint = hint
    a, x, y, n, g = args

    def named(op: Operation, hint: str) -> Operation:
        op.results[0].name_hint = hint
        return op

    i = named(GlobalIdOp(Dim.X), "i")
    v = named(LoadOp(x, i), "v")
    shared = named(SharedAllocOp(f32, 256, 16), "s")
    fp = named(FuncAddrOp("h", F32_TO_F32), "fp")
    shuffle = named(ShuffleOp(ShuffleMode.XOR, v, n), "sh")
    shuffle2 = named(ShuffleOp(ShuffleMode.IDX, n, n, n), "sh2")
    shuffle.results[1].name_hint = shuffle2.results[1].name_hint = "ok"
    job_params = {"always_inline": IntegerAttr(1, i1)}
    half_tile = named(SharedAllocOp(f16, 256), "ht")
    a_type = FragmentType(16, 16, f16, MatrixOperand.A)
    c_type = FragmentType(16, 16, f32, MatrixOperand.C)
    a_tile = named(MatrixLoadOp(half_tile, i, g, a_type), "fa")
    b_type = FragmentType(16, 16, f16, MatrixOperand.B)
    b_tile = named(MatrixLoadOp(half_tile, i, g, b_type, transpose=True), "fb")
    c_tile = named(MatrixSplatOp(a, c_type), "fc")
    d_tile = named(MatrixMmaOp(a_tile, b_tile, c_tile, b_transpose=True), "fd")
    e_tile = named(
        MatrixElementwiseOp(ElementwiseKind.MAXF, [d_tile, c_tile], c_type), "fe"
    )
    kernel.body.block.add_ops(
        [
            i,
            named(ThreadIdOp(Dim.Y), "t"),
            named(BlockIdOp(Dim.Z), "b"),
            named(BlockDimOp(Dim.X), "bd"),
            named(GridDimOp(Dim.X), "gd"),
            named(LaneIdOp(), "l"),
            BarrierOp(),
            v,
            shuffle,
            shuffle2,
            named(SubgroupReduceOp(ReduceKind.MAX, v), "red"),
            named(SubgroupIdOp(), "sg"),
            named(SubgroupSizeOp(), "sgs"),
            named(NumSubgroupsOp(), "nsg"),
            named(VoteOp(VoteKind.ALL, shuffle.results[1]), "all"),
            named(BallotOp(shuffle.results[1], 64), "mask"),
            FenceOp(FenceScope.DEVICE, MemoryOrder.ACQ_REL),
            PrintfOp("v=%f at %d\n", [v, n]),
            named(LoadOp(x), "v0"),
            StoreOp(v, x, i),
            named(OffsetOp(x, i), "q"),
            shared,
            named(PrivateAllocOp(f32, 8), "pa"),
            named(AtomicRMWOp(AtomicKind.ADD, x, v, i), "old"),
            named(
                AtomicRMWOp(AtomicKind.XOR, y, n, ordering=MemoryOrder.SEQ_CST), "old2"
            ),
            named(AtomicCmpXchgOp(y, n, n, i), "c"),
            named(AtomicCmpXchgOp(y, n, n, ordering=MemoryOrder.ACQ_REL), "c2"),
            named(AddrSpaceCastOp(shared, AddressSpace.GENERIC), "gen"),
            half_tile,
            a_tile,
            b_tile,
            c_tile,
            d_tile,
            e_tile,
            MatrixStoreOp(e_tile, x, i, g, transpose=True),
            named(CallOp("h", [a], [f32]), "r"),
            named(
                DeferredCallOp(
                    "src", JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE), [a], [f32]
                ),
                "r2",
            ),
            named(
                DeferredAddrOp(
                    "src",
                    JobAttr(Role.HELPER, generator="mock_autodiff", params=job_params),
                    F32_TO_F32,
                ),
                "dfp",
            ),
            fp,
            named(CallIndirectOp(fp, [a]), "r3"),
            DeferredLaunchOp("child", JobAttr(Role.KERNEL), [g], [g], [x]),
            LaunchOp("child", [g, g], [g], [x], shared=g),
            ReturnOp(),
        ]
    )
    child = FuncOp("child", ([F32_GLOBAL], []), Role.KERNEL)
    child.body.block.args[0].name_hint = "x"
    child.body.block.add_op(ReturnOp())
    helper = FuncOp(
        "h",
        F32_TO_F32,
        Role.HELPER,
        visibility="private",
        inline=InlineHint.ALWAYS_INLINE,
    )
    helper.body.block.args[0].name_hint = "a"
    helper.body.block.add_op(ReturnOp(helper.body.block.args[0]))
    declaration = FuncOp.declaration("decl", [f32], [f32])
    multi = FuncOp(
        "multi",
        ([f32, i32], [f32, i32]),
        Role.HELPER,
        Region(),
        visibility="private",
        inline=InlineHint.NO_INLINE,
    )
    grad = DeferredKernelOp(
        "grad",
        "h",
        JobAttr(
            Role.HELPER, generator="autodiff", params={"mode": StringAttr("reverse")}
        ),
        F32_TO_F32,
    )
    return ModuleOp([kernel, child, helper, declaration, multi, grad])


# The documented text format, one line per op, as the printer must write it.
EVERY_OP_TEXT = """\
builtin.module {
  gpuc.func @k(%a: f32, %x: !gpuc.ptr<f32, global>, %y: !gpuc.ptr<i32, global>, %n: i32, %g: index) kernel {
    %i = gpuc.global_id x
    %t = gpuc.thread_id y
    %b = gpuc.block_id z
    %bd = gpuc.block_dim x
    %gd = gpuc.grid_dim x
    %l = gpuc.lane_id
    gpuc.barrier
    %v = gpuc.load %x[%i] : !gpuc.ptr<f32, global>
    %sh, %ok = gpuc.shuffle xor %v, %n : f32
    %sh2, %ok_1 = gpuc.shuffle idx %n, %n, width %n : i32
    %red = gpuc.subgroup_reduce max %v : f32
    %sg = gpuc.subgroup_id
    %sgs = gpuc.subgroup_size
    %nsg = gpuc.num_subgroups
    %all = gpuc.vote all %ok
    %mask = gpuc.ballot %ok : i64
    gpuc.fence device acq_rel
    gpuc.printf "v=%f at %d\\0A" %v, %n : f32, i32
    %v0 = gpuc.load %x : !gpuc.ptr<f32, global>
    gpuc.store %v, %x[%i] : !gpuc.ptr<f32, global>
    %q = gpuc.offset %x[%i] : !gpuc.ptr<f32, global>
    %s = gpuc.shared_alloc 256 align 16 : !gpuc.ptr<f32, shared>
    %pa = gpuc.private_alloc 8 : !gpuc.ptr<f32, local>
    %old = gpuc.atomic_rmw add %x[%i], %v : !gpuc.ptr<f32, global>
    %old2 = gpuc.atomic_rmw xor %y, %n seq_cst : !gpuc.ptr<i32, global>
    %c = gpuc.atomic_cmpxchg %y[%i], %n, %n : !gpuc.ptr<i32, global>
    %c2 = gpuc.atomic_cmpxchg %y, %n, %n acq_rel : !gpuc.ptr<i32, global>
    %gen = gpuc.addrspace_cast %s : !gpuc.ptr<f32, shared> to !gpuc.ptr<f32, generic>
    %ht = gpuc.shared_alloc 256 : !gpuc.ptr<f16, shared>
    %fa = gpuc.matrix_load %ht[%i], %g : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, a>
    %fb = gpuc.matrix_load %ht[%i], %g transpose : !gpuc.ptr<f16, shared> -> !gpuc.fragment<16x16xf16, b>
    %fc = gpuc.matrix_splat %a : f32 -> !gpuc.fragment<16x16xf32, c>
    %fd = gpuc.matrix_mma %fa, %fb, %fc b_transpose : !gpuc.fragment<16x16xf16, a>, !gpuc.fragment<16x16xf16, b>, !gpuc.fragment<16x16xf32, c>
    %fe = gpuc.matrix_elementwise maxf %fd, %fc : !gpuc.fragment<16x16xf32, c>, !gpuc.fragment<16x16xf32, c> -> !gpuc.fragment<16x16xf32, c>
    gpuc.matrix_store %fe, %x[%i], %g transpose : !gpuc.fragment<16x16xf32, c>, !gpuc.ptr<f32, global>
    %r = gpuc.call @h(%a) : (f32) -> f32
    %r2 = gpuc.deferred_call @src(%a) #gpuc.job<helper, always_inline> : (f32) -> f32
    %dfp = gpuc.deferred_addr @src #gpuc.job<helper, generator = "mock_autodiff" {always_inline = true}> : !gpuc.funcptr<(f32) -> f32>
    %fp = gpuc.func_addr @h : !gpuc.funcptr<(f32) -> f32>
    %r3 = gpuc.call_indirect %fp(%a) : !gpuc.funcptr<(f32) -> f32>
    gpuc.deferred_launch @child grid(%g) block(%g) (%x) #gpuc.job<kernel> : (!gpuc.ptr<f32, global>)
    gpuc.launch @child grid(%g, %g) block(%g) shared(%g) (%x) : (!gpuc.ptr<f32, global>)
    gpuc.return
  }
  gpuc.func @child(%x: !gpuc.ptr<f32, global>) kernel {
    gpuc.return
  }
  gpuc.func private @h(%a: f32) -> f32 helper always_inline {
    gpuc.return %a : f32
  }
  gpuc.func private @decl(f32) -> f32 helper
  gpuc.func private @multi(f32, i32) -> (f32, i32) helper no_inline
  gpuc.deferred_kernel @grad = @h #gpuc.job<helper, generator = "autodiff" {mode = "reverse"}> : (f32) -> f32
}"""  # noqa: E501


def test_builders_cover_every_op_of_the_dialect() -> None:
    built = {type(op) for op in build_every_op().walk()}
    missing = {op.name for op in GPUC.operations} - {op.name for op in built}
    assert not missing, f"add these ops to build_every_op: {sorted(missing)}"


def test_builders_print_the_documented_format() -> None:
    module = build_every_op()
    module.verify()
    assert str(module) == EVERY_OP_TEXT


def test_builder_module_roundtrips() -> None:
    assert roundtrip(build_every_op()) == EVERY_OP_TEXT


def test_text_parses_to_what_the_builders_build() -> None:
    parsed = parse(EVERY_OP_TEXT)
    parsed.verify()
    assert parsed.is_structurally_equivalent(build_every_op())


@pytest.mark.parametrize(
    ("attribute", "text"),
    [
        (F32_GLOBAL, "!gpuc.ptr<f32, global>"),
        (PtrType(i32, AddressSpace.CONSTANT), "!gpuc.ptr<i32, constant>"),
        (
            FuncPtrType(FunctionType.from_lists([f32, i32], [])),
            "!gpuc.funcptr<(f32, i32) -> ()>",
        ),
        (JobAttr(Role.KERNEL), "#gpuc.job<kernel>"),
        (JobAttr(Role.HELPER, InlineHint.NO_INLINE), "#gpuc.job<helper, no_inline>"),
        (
            JobAttr(Role.HELPER, generator="g", params={"n": IntegerAttr(3, i32)}),
            '#gpuc.job<helper, generator = "g" {n = 3 : i32}>',
        ),
        (JobAttr(Role.HELPER, generator="g"), '#gpuc.job<helper, generator = "g">'),
    ],
)
def test_attributes_print_and_parse(attribute: Attribute, text: str) -> None:
    assert str(attribute) == text
    parsed = Parser(make_context(), text).parse_attribute()
    assert parsed == attribute
    assert hash(parsed) == hash(attribute)


def test_job_attr_accessors_and_identity() -> None:
    job = JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE, "gen", {"k": StringAttr("v")})
    assert job.job_role is Role.HELPER
    assert job.inline_hint is InlineHint.ALWAYS_INLINE
    assert job.generator_name == "gen"
    assert job.params == DictionaryAttr({"k": StringAttr("v")})
    plain = JobAttr(Role.KERNEL)
    assert (plain.inline_hint, plain.generator_name) == (None, None)
    # The job table dedups on (source, JobAttr): equal configurations are one job.
    assert JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE) == JobAttr(
        Role.HELPER, InlineHint.ALWAYS_INLINE
    )
    assert JobAttr(Role.HELPER) != JobAttr(Role.HELPER, InlineHint.ALWAYS_INLINE)


def test_op_accessors() -> None:
    module = build_every_op()
    funcs = {f.sym_name.data: f for f in module.walk() if isinstance(f, FuncOp)}
    kernel, helper, decl = funcs["k"], funcs["h"], funcs["decl"]
    assert kernel.is_kernel and not helper.is_kernel
    assert (kernel.visibility, helper.visibility, decl.visibility) == (
        "public",
        "private",
        "private",
    )
    assert decl.is_declaration and not helper.is_declaration
    assert helper.inline_hint is InlineHint.ALWAYS_INLINE and kernel.inline_hint is None
    assert funcs["multi"].inline_hint is InlineHint.NO_INLINE
    ops = {type(op): op for op in kernel.walk()}
    deferred_call = ops[DeferredCallOp]
    assert isinstance(deferred_call, DeferredCallOp)
    assert deferred_call.signature == F32_TO_F32
    deferred_addr = ops[DeferredAddrOp]
    assert isinstance(deferred_addr, DeferredAddrOp)
    assert deferred_addr.signature == F32_TO_F32
    launch = ops[DeferredLaunchOp]
    assert isinstance(launch, DeferredLaunchOp)
    assert launch.signature == FunctionType.from_lists([F32_GLOBAL], [])
    rmw = [op for op in kernel.walk() if isinstance(op, AtomicRMWOp)]
    assert [op.memory_order for op in rmw] == [MemoryOrder.RELAXED, MemoryOrder.SEQ_CST]
    assert F32_GLOBAL.address_space is AddressSpace.GLOBAL


def kernel_with(*make: Callable[[FuncOp], Operation]) -> ModuleOp:
    """A module with helper @h: (f32) -> f32 and kernel
    @k(f32, ptr<f32, global>, ptr<i32, constant>, index, i32) whose body is the
    ops `make` builds from it, then `gpuc.return`."""
    constant = PtrType(i32, AddressSpace.CONSTANT)
    kernel = FuncOp(
        "k", ([f32, F32_GLOBAL, constant, IndexType(), i32], []), Role.KERNEL
    )
    for build in make:
        kernel.body.block.add_op(build(kernel))
    kernel.body.block.add_op(ReturnOp())
    helper = FuncOp("h", F32_TO_F32, Role.HELPER, visibility="private")
    helper.body.block.add_op(ReturnOp(helper.body.block.args[0]))
    return ModuleOp([kernel, helper])


def _helper_returning_nothing() -> ModuleOp:
    helper = FuncOp("h", F32_TO_F32, Role.HELPER, visibility="private")
    helper.body.block.add_op(ReturnOp())
    return ModuleOp([helper])


INVALID: list[tuple[str, Callable[[], Operation], str]] = [
    (
        "kernel-returns",
        lambda: ModuleOp([FuncOp.declaration("k", [], [f32], Role.KERNEL)]),
        "kernel @k returns (f32); kernels return nothing",
    ),
    (
        "public-declaration",
        lambda: ModuleOp([FuncOp("d", ([f32], []), Role.HELPER, Region())]),
        "declaration @d cannot be public; mark it private",
    ),
    (
        "bad-visibility",
        lambda: ModuleOp(
            [FuncOp("d", ([], []), Role.HELPER, Region(), visibility="hidden")]
        ),
        "@d has visibility 'hidden'; expected public, private or nested",
    ),
    (
        "missing-callee",
        lambda: kernel_with(lambda k: CallOp("nope", [k.body.block.args[0]], [f32])),
        "callee @nope does not exist in the enclosing symbol table",
    ),
    (
        "call-kernel",
        lambda: kernel_with(lambda k: CallOp("k", [], [])),
        "@k is a kernel and cannot be called; launch it with gpuc.launch",
    ),
    (
        "call-types",
        lambda: kernel_with(lambda k: CallOp("h", [k.body.block.args[0]], [i32])),
        "call to @h: result types (i32) differ from the callee's result types (f32)",
    ),
    (
        "launch-helper",
        lambda: kernel_with(
            lambda k: LaunchOp("h", [k.body.block.args[3]], [k.body.block.args[3]], [])
        ),
        "@h is a helper; only kernels can be launched",
    ),
    (
        "grid-too-many",
        lambda: kernel_with(
            lambda k: DeferredLaunchOp(
                "s",
                JobAttr(Role.KERNEL),
                [k.body.block.args[3]] * 4,
                [k.body.block.args[3]],
                [],
            )
        ),
        "grid takes 1 to 3 sizes (x, y, z), got 4",
    ),
    (
        "block-missing",
        lambda: kernel_with(
            lambda k: LaunchOp("k", [k.body.block.args[3]], [], k.body.block.args)
        ),
        "block takes 1 to 3 sizes (x, y, z), got 0",
    ),
    (
        "store-type",
        lambda: kernel_with(
            lambda k: StoreOp(k.body.block.args[3], k.body.block.args[2])
        ),
        "stores index through !gpuc.ptr<i32, constant>, whose element type is i32",
    ),
    (
        "store-constant",
        lambda: kernel_with(
            lambda k: StoreOp(k.body.block.args[4], k.body.block.args[2])
        ),
        "cannot store through a pointer to constant memory",
    ),
    (
        "load-type",
        lambda: kernel_with(
            lambda k: LoadOp.create(operands=[k.body.block.args[1]], result_types=[i32])
        ),
        "loads i32 through !gpuc.ptr<f32, global>, whose element type is f32",
    ),
    (
        "shared-count",
        lambda: kernel_with(lambda k: SharedAllocOp(f32, 0)),
        "allocates 0 elements; the count must be positive",
    ),
    (
        "shared-align",
        lambda: kernel_with(lambda k: SharedAllocOp(f32, 4, 12)),
        "alignment 12 is not a positive power of two",
    ),
    (
        "atomic-space",
        lambda: kernel_with(
            lambda k: AtomicRMWOp(
                AtomicKind.ADD, k.body.block.args[2], k.body.block.args[2]
            )
        ),
        "atomics need a global, shared or generic pointer",
    ),
    (
        "atomic-float-and",
        lambda: kernel_with(
            lambda k: AtomicRMWOp(
                AtomicKind.AND, k.body.block.args[1], k.body.block.args[0]
            )
        ),
        "atomic 'and' needs an integer element type, not f32",
    ),
    (
        "cmpxchg-float",
        lambda: kernel_with(
            lambda k: AtomicCmpXchgOp(
                k.body.block.args[1], k.body.block.args[0], k.body.block.args[0]
            )
        ),
        "compare-exchange needs an integer element type, not f32",
    ),
    (
        "cast-not-generic",
        lambda: kernel_with(
            lambda k: AddrSpaceCastOp(k.body.block.args[1], AddressSpace.SHARED)
        ),
        "cannot cast !gpuc.ptr<f32, global> to !gpuc.ptr<f32, shared> directly",
    ),
    (
        "deferred-call-kernel-job",
        lambda: kernel_with(
            lambda k: DeferredCallOp("s", JobAttr(Role.KERNEL), [], [])
        ),
        "a deferred call's job must be a helper",
    ),
    (
        "deferred-launch-helper-job",
        lambda: kernel_with(
            lambda k: DeferredLaunchOp(
                "s",
                JobAttr(Role.HELPER),
                [k.body.block.args[3]],
                [k.body.block.args[3]],
                [],
            )
        ),
        "a deferred launch's job must be a kernel",
    ),
    (
        "index-outside-function",
        lambda: ModuleOp([ThreadIdOp(Dim.X)]),
        "'gpuc.thread_id' must be inside a function (gpuc.func)",
    ),
    (
        "return-types",
        _helper_returning_nothing,
        "returns () but @h declares results (f32)",
    ),
]


@pytest.mark.parametrize(
    ("build", "message"),
    [(build, message) for _, build, message in INVALID],
    ids=[case for case, _, _ in INVALID],
)
def test_verifier_diagnostics(build: Callable[[], Operation], message: str) -> None:
    with pytest.raises(VerifyException) as info:
        build().verify()
    assert message in str(info.value)


# The symbol table cache. Every test compares the cached lookup with a fresh
# scan of the table op's block (`oracle`), after warming the cache first, so a
# stale cached entry would show up as a difference.


def oracle(table_op: Operation, name: str) -> Operation | None:
    for op in table_op.regions[0].block.ops:
        if symbols.symbol_name(op) == name:
            return op
    return None


def decl(name: str) -> FuncOp:
    return FuncOp.declaration(name, [], [])


def rename(op: Operation, name: str) -> None:
    op.properties["sym_name"] = StringAttr(name)


def module(*ops: Operation, name: str | None = None) -> ModuleOp:
    return ModuleOp(list(ops), sym_name=StringAttr(name) if name else None)


@pytest.fixture
def rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[Operation]:
    """The table ops whose symbol map is (re)built, in order."""
    built: list[Operation] = []
    real = symbols.build_table

    def counting(table_op: Operation) -> dict[str, Operation]:
        built.append(table_op)
        return real(table_op)

    monkeypatch.setattr(symbols, "build_table", counting)
    return built


def test_cache_hit_does_not_rescan(rebuilds: list[Operation]) -> None:
    f, g = decl("f"), decl("g")
    top = module(f, g)
    assert symbols.lookup_in(top, "f") is f
    assert symbols.lookup_in(top, "g") is g
    assert symbols.lookup_in(top, "f") is f
    assert rebuilds == [top]


def test_renamed_symbol(rebuilds: list[Operation]) -> None:
    f = decl("f")
    top = module(f, decl("other"))
    assert symbols.lookup_in(top, "f") is f
    rename(f, "g")
    assert symbols.lookup_in(top, "f") is None
    assert symbols.lookup_in(top, "g") is f
    rename(f, "f")
    assert symbols.lookup_in(top, "f") is f
    assert symbols.lookup_in(top, "g") is None


def test_swapped_names() -> None:
    f, g = decl("f"), decl("g")
    top = module(f, g)
    assert (symbols.lookup_in(top, "f"), symbols.lookup_in(top, "g")) == (f, g)
    rename(f, "tmp")
    rename(g, "f")
    rename(f, "g")
    assert symbols.lookup_in(top, "f") is g
    assert symbols.lookup_in(top, "g") is f


def test_erased_symbol_and_redefinition() -> None:
    f = decl("f")
    top = module(f)
    assert symbols.lookup_in(top, "f") is f
    f.detach()
    f.erase()
    assert symbols.lookup_in(top, "f") is None
    again = decl("f")
    top.body.block.add_op(again)
    assert symbols.lookup_in(top, "f") is again


def test_detached_symbol_reinserted_elsewhere_in_the_same_table() -> None:
    f, g = decl("f"), decl("g")
    top = module(f, g)
    assert symbols.lookup_in(top, "f") is f
    f.detach()
    top.body.block.insert_op_after(f, g)
    assert symbols.lookup_in(top, "f") is f


def test_symbol_moved_between_nested_tables() -> None:
    f = decl("f")
    inner = module(name="inner")
    top = module(f, inner)
    assert symbols.lookup_in(top, "f") is f
    assert symbols.lookup_in(inner, "f") is None
    f.detach()
    inner.body.block.add_op(f)
    assert symbols.lookup_in(top, "f") is None
    assert symbols.lookup_in(inner, "f") is f
    assert symbols.lookup_ref(top, SymbolRefAttr("inner", ["f"])) is f
    f.detach()
    top.body.block.add_op(f)
    assert symbols.lookup_in(inner, "f") is None
    assert symbols.lookup_ref(top, SymbolRefAttr("inner", ["f"])) is None
    assert symbols.lookup_in(top, "f") is f


def test_nested_references() -> None:
    f, g = decl("f"), decl("g")
    b = module(f, name="b")
    a = module(b, g, name="a")
    top = module(a, decl("top_level"))

    def ref(root: str, *nested: str) -> Operation | None:
        return symbols.lookup_ref(top, SymbolRefAttr(root, list(nested)))

    assert ref("a", "b", "f") is f
    assert ref("a", "g") is g
    assert ref("a", "b") is b
    assert ref("a", "missing") is None
    assert ref("f") is None, "a nested symbol is not visible from the top"
    assert ref("a", "g", "x") is None, "@g is a function, not a symbol table"
    assert ref("a", "b", "f", "x") is None
    rename(b, "c")
    assert ref("a", "b", "f") is None
    assert ref("a", "c", "f") is f


def test_nearest_table_shadows_outer_symbols() -> None:
    outer_h = FuncOp.declaration("h", [f32], [f32])
    inner_h = FuncOp.declaration("h", [i32], [i32])
    user = FuncOp("user", ([i32], [i32]), Role.HELPER, visibility="private")
    call = CallOp("h", [user.body.block.args[0]], [i32])
    user.body.block.add_ops([call, ReturnOp(call)])
    inner = module(inner_h, user, name="inner")
    top = module(outer_h, inner)
    top.verify()
    assert symbols.lookup_nearest(call, "h") is inner_h
    assert symbols.nearest_table(call) is inner
    inner_h.detach()
    inner_h.erase()
    assert symbols.lookup_nearest(call, "h") is None
    with pytest.raises(VerifyException, match="callee @h does not exist"):
        top.verify()


def test_lookup_from_detached_op_and_from_a_table_itself() -> None:
    lone = decl("lone")
    assert symbols.nearest_table(lone) is None
    assert symbols.lookup_nearest(lone, "lone") is None
    top = module(lone)
    assert symbols.lookup_nearest(top, "lone") is lone


def test_verification_follows_renames() -> None:
    """The verifier of a call uses the cache, so it must see each rename."""
    text = """
    gpuc.func private @h(%a: f32) -> f32 helper {
      gpuc.return %a : f32
    }
    gpuc.func @k(%a: f32) kernel {
      %r = gpuc.call @h(%a) : (f32) -> f32
      gpuc.return
    }"""
    top = parse(text)
    top.verify()
    h = symbols.lookup_in(top, "h")
    assert h is not None
    rename(h, "h2")
    with pytest.raises(VerifyException, match="callee @h does not exist"):
        top.verify()
    rename(h, "h")
    top.verify()


def test_first_definition_wins_on_duplicates() -> None:
    first, second = decl("f"), decl("f")
    top = module(first, second)
    assert symbols.lookup_in(top, "f") is first


def test_freed_module_frees_its_table() -> None:
    top = parse("gpuc.func private @f(f32) -> f32 helper")
    assert symbols.lookup_in(top, "f") is not None
    alive = weakref.ref(top)
    del top
    gc.collect()
    assert alive() is None, "the symbol cache keeps a dead module alive"


NAMES = ("a", "b", "c", "d", "e")
step = st.tuples(
    st.sampled_from(["rename", "erase", "insert", "move"]),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=25))
def test_cache_agrees_with_a_fresh_scan_after_any_mutation(
    steps: list[tuple[str, int, int, int]],
) -> None:
    """Random renames, erasures, insertions and moves between an outer and a
    nested table; after each, every lookup equals a fresh scan. Names stay
    unique per table (the verifier rejects duplicates anyway)."""
    inner = module(decl("a"), name="inner")
    top = module(decl("a"), decl("b"), inner)
    tables: list[ModuleOp] = [top, inner]
    detached: list[Operation] = []

    def symbols_in(table: ModuleOp) -> list[Operation]:
        return [op for op in table.body.block.ops if op is not inner]

    def free_names(table: ModuleOp) -> list[str]:
        used = {symbols.symbol_name(op) for op in table.body.block.ops}
        return [n for n in NAMES if n not in used]

    def check() -> None:
        for table in tables:
            for name in NAMES:
                assert symbols.lookup_in(table, name) is oracle(table, name)
        for name in NAMES:
            expected = oracle(inner, name) if inner.parent is not None else None
            got = symbols.lookup_ref(top, SymbolRefAttr("inner", [name]))
            assert got is expected

    check()
    for kind, which, where, name_pick in steps:
        table = tables[where % 2]
        present = symbols_in(table)
        free = free_names(table)
        if kind == "rename" and present and free:
            rename(present[which % len(present)], free[name_pick % len(free)])
        elif kind == "erase" and present:
            victim = present[which % len(present)]
            victim.detach()
            detached.append(victim)
        elif kind == "insert" and free:
            new: Operation
            if detached and which % 2:
                new = detached.pop(which % len(detached))
                rename(new, free[name_pick % len(free)])
            else:
                new = decl(free[name_pick % len(free)])
            ops = list(table.body.block.ops)
            if ops and which % 3:
                table.body.block.insert_op_before(new, ops[which % len(ops)])
            else:
                table.body.block.add_op(new)
        elif kind == "move" and present:
            other = tables[(where + 1) % 2]
            moving = present[which % len(present)]
            other_free = free_names(other)
            if other_free:
                moving.detach()
                rename(moving, other_free[name_pick % len(other_free)])
                other.body.block.add_op(moving)
        check()
