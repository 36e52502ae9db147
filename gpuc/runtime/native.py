"""The native executor: runs the native target's LLVM IR in-process through
llvmlite's JIT, with a grid emulator following docs/native-abi.md.

A small launch calls the kernel's `__gpuc_launch_<k>` directly (`_FastPath`
when its arguments are exactly what the kernel takes). A big one is one call
of `__gpuc_run` (gpuc/runtime/native_pool.py): it offers the launch to the
process's parked worker threads and works itself; every worker claims chunks
of blocks from a shared counter and calls the kernel's `__gpuc_call_<k>` (its
launch entry, the arguments unpacked) on its own launch record for each, and
the call returns once every block is done. No Python runs while a kernel
runs, so the threads never wait for the GIL.

Every kernel runs its blocks one after another in one OS thread per block
range: a kernel without barriers as a loop nest over each block's threads, a
kernel with barriers as one call of its work-group function per block
(gpuc/targets/native/work_groups.py), which loops over the block's threads between
barriers. Big launches are split into chunks of blocks, a few per core, each
thread with its own shared memory. If the system refuses the pool a thread,
launches run on the threads it has (at least the calling one).

The JIT's object code is kept in the compile cache (gpuc/cache/store.py,
`native_object_key`) through MCJIT's object-cache hooks: a later executor for
the same IR on the same host, in any process, loads it instead of running
LLVM's code generator (`jit_cache` says which happened).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gpuc.cache import store as compile_cache
from gpuc.runtime.args import (
    CUDA_LIMITS,
    Dim3,
    KernelSignature,
    Launch,
    LaunchError,
    Limits,
    check_launch,
    dim3,
    remembered_geometry,
    with_shared_offsets,
)
from gpuc.runtime.arrays import SharedMemory
from gpuc.runtime.native_pool import (
    ALIGN,
    LIBC_FUNCTIONS,
    MAX_WORKERS,
    RECORD,
    RECORD_BYTES,
    call_ir,
    pool,
)
from gpuc.runtime.printing import HOOK_ADDRESS, block_output
from gpuc.targets.launch_abi import NATIVE_PRINT
from gpuc.targets.native.abi import (
    FAULT_BOUNDS,
    FAULT_RETURNED,
    FAULT_THREAD,
    checked_symbol,
    dynamic_shared_start,
)

ARG_SLOT_BYTES = 8
PAGE = mmap.PAGESIZE
SPLIT_THRESHOLD = 1 << 15  # threads in a launch before it is worth a second core
JIT_OPT_LEVEL = 3
SPECIALIZE_AFTER = 2
"""The launches of a barrier kernel with one block after which its later
launches with that block run a work-group function compiled for it (the
first, often the only one, does not wait for a compile); GPUC_SPECIALIZE=0
turns this off."""
MAX_VARIANTS = 8
"""Blocks an executor compiles one kernel for at most (a program trying
many blocks does not keep a compiled module per block)."""
_LIBC_FUNCTIONS = (*LIBC_FUNCTIONS, "_setjmp", "longjmp")


def _private_sum_ir(name: str, ty: str, lanes: int) -> str:
    """`dst[i] += src[i]; src[i] = 0` for every i < n whose `src[i]` is not
    zero: a private copy of a summed parameter added into the caller's
    buffer and zeroed again, touching no element the copy did not add to (a
    window's buffer spans elements of the array it is cut from, which the
    kernel never touched and another thread may be writing).

    `lanes` elements at a time, written out as vectors because LLVM's cost
    model keeps the branchy loop scalar (2 ms to scan a 16 MB copy): a group
    with no element added to is only read, a full one is added whole, a
    partial one with masked loads and stores; then the rest one by one."""
    vec = f"<{lanes} x {ty}>"
    mask = f"<{lanes} x i1>"
    bits = f"i{lanes}"
    suffix = f"v{lanes}{'f32' if ty == 'float' else 'f64'}"
    load, store = (f"@llvm.masked.{op}.{suffix}.p0" for op in ("load", "store"))
    return f"""
declare {vec} {load}(ptr, i32, {mask}, {vec})
declare void {store}({vec}, ptr, i32, {mask})

define void @{name}(ptr noalias %dst, ptr noalias %src, i64 %n) {{
entry:
  %groups = udiv i64 %n, {lanes}
  %whole = mul i64 %groups, {lanes}
  %none = icmp eq i64 %groups, 0
  br i1 %none, label %tail, label %group
group:
  %g = phi i64 [ 0, %entry ], [ %gnext, %gnext.bb ]
  %gs = getelementptr inbounds {ty}, ptr %src, i64 %g
  %gv = load {vec}, ptr %gs, align 4
  %gm = fcmp une {vec} %gv, zeroinitializer
  %gb = bitcast {mask} %gm to {bits}
  %empty = icmp eq {bits} %gb, 0
  br i1 %empty, label %gnext.bb, label %some
some:
  %gd = getelementptr inbounds {ty}, ptr %dst, i64 %g
  %full = icmp eq {bits} %gb, -1
  br i1 %full, label %all, label %part
all:
  %ad = load {vec}, ptr %gd, align 4
  %as = fadd {vec} %ad, %gv
  store {vec} %as, ptr %gd, align 4
  store {vec} zeroinitializer, ptr %gs, align 4
  br label %gnext.bb
part:
  %pd = call {vec} {load}(ptr %gd, i32 4, {mask} %gm, {vec} poison)
  %ps = fadd {vec} %pd, %gv
  call void {store}({vec} %ps, ptr %gd, i32 4, {mask} %gm)
  call void {store}({vec} zeroinitializer, ptr %gs, i32 4, {mask} %gm)
  br label %gnext.bb
gnext.bb:
  %gnext = add nuw i64 %g, {lanes}
  %gmore = icmp ult i64 %gnext, %whole
  br i1 %gmore, label %group, label %tail
tail:
  %first = phi i64 [ 0, %entry ], [ %whole, %gnext.bb ]
  %rest = icmp ult i64 %first, %n
  br i1 %rest, label %loop, label %done
loop:
  %i = phi i64 [ %first, %tail ], [ %next, %latch ]
  %es = getelementptr inbounds {ty}, ptr %src, i64 %i
  %v = load {ty}, ptr %es
  %nz = fcmp une {ty} %v, 0.0
  br i1 %nz, label %add, label %latch
add:
  %ed = getelementptr inbounds {ty}, ptr %dst, i64 %i
  %d = load {ty}, ptr %ed
  %s = fadd {ty} %d, %v
  store {ty} %s, ptr %ed
  store {ty} 0.0, ptr %es
  br label %latch
latch:
  %next = add nuw i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"""


PRIVATE_SUMS = {"float32": "__gpuc_sum_f32", "float64": "__gpuc_sum_f64"}
"""The executor's sums of private copies, by element dtype (what
`gpuc.kernel_params.summed_params` allows)."""
PRIVATE_SUM_IR = _private_sum_ir(
    PRIVATE_SUMS["float32"], "float", 16
) + _private_sum_ir(PRIVATE_SUMS["float64"], "double", 8)
"""Their IR, in every executor's glue module."""


def _load_compiler_runtime(llvm: Any) -> None:
    """LLVM lowers some operations to calls into the compiler's runtime
    library (i128 division and remainder: `__divti3`, `__modti3`, ...), which
    a JIT does not link; libgcc_s, present wherever glibc is, defines them."""
    import ctypes.util

    for name in (ctypes.util.find_library("gcc_s"), "libgcc_s.so.1"):
        if name:
            try:
                llvm.load_library_permanently(name)
                return
            except RuntimeError:
                continue


_GRID = RECORD.word("grid_dim")
_BLOCK = RECORD.word("block_dim")
_BEGIN = RECORD.word("block_begin")
_END = RECORD.word("block_end")
_SHARED = RECORD.word("shared")
_ERROR = RECORD.word("error")
_KIND = RECORD.word("error_kind")

_C_TYPES: dict[str, Any] = {
    "ptr": ctypes.c_void_p,
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
}


def _direct_entry(
    address: int, arg_types: Sequence[str]
) -> tuple[Any, tuple[bool, ...]] | None:
    """`__gpuc_launch_<k>` as a ctypes function, and for each argument
    whether it is a pointer (an array's address) rather than a scalar; None
    if ctypes cannot pass one of the arguments (the launch then goes through
    the worker, whose argument checks say why)."""
    if any(ty not in _C_TYPES for ty in arg_types):
        return None
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *(_C_TYPES[t] for t in arg_types))
    return fn(address), tuple(t == "ptr" for t in arg_types)


def _as_c(pointer: bool, value: Any) -> Any:
    """A checked argument as ctypes takes it: an array's address (or a shared
    pointer's offset into the dynamic shared memory), a scalar's Python
    value. (ctypes has no half type: a kernel with an f16 parameter launches
    through the worker, which passes it in the register the ABI says.)"""
    if pointer:
        if isinstance(value, np.uint64):
            return int(value)
        return value.__array_interface__["data"][0]
    if isinstance(value, np.float32):
        # .item() goes through a Python float (a double), which quiets a
        # signalling NaN; a c_float of the same bytes is passed as is.
        return ctypes.c_float.from_buffer_copy(value.tobytes())
    return value.item()


def _report(name: str, launch: Launch, record: Any) -> None:
    """Raise the error a launch entry reported in `record`: a message, and
    for a fault (docs/native-abi.md) the thread, index and extent."""
    message = ctypes.string_at(int(record[_ERROR])).decode(errors="replace")
    linear = int(record[RECORD.word("error_block")])
    gx, gy, _ = launch.grid
    block_id = (linear % gx, linear // gx % gy, linear // (gx * gy))
    where = f"block {block_id}"
    kind = int(record[_KIND])
    if kind in (FAULT_THREAD, FAULT_BOUNDS, FAULT_RETURNED):
        thread = tuple(int(t) for t in record[RECORD.words("error_thread")])
        where += f", thread {thread}"
    if kind == FAULT_BOUNDS:
        index = int(np.int64(record[RECORD.word("error_index")]))
        extent = int(record[RECORD.word("error_extent")])
        message += f": index {index} is outside the extent {extent}"
    stopped = (
        "the failing thread returned there (the first failure is reported)"
        if kind == FAULT_RETURNED
        else "the launch stopped there (blocks after it in its range did not run)"
    )
    raise LaunchError(f"kernel '{name}': {where}: {message}; {stopped}")


def _shared_bytes(launch: Launch) -> int:
    """A block's shared memory: the static part, then the dynamic part of its
    `SharedMemory` arguments (docs/native-abi.md)."""
    return dynamic_shared_start(launch.sig.static_shared_bytes) + launch.shared


class _Buffers:
    """What a checked kernel reads about its launch's buffers (the record's
    `extents`, `buffers` and `buffer_count`), kept alive during the launch:
    each argument's byte size (0 for a scalar), and a table of (start, bytes)
    per array argument and then per block range's shared memory."""

    def __init__(self, launch: Launch, shared: Sequence[int], shared_bytes: int):
        values = launch.values
        arrays = [
            np.asarray(v) if hasattr(v, "__array_interface__") else None for v in values
        ]
        self.extents = np.array(
            [
                v.count * p.dtype.itemsize
                if isinstance(v, SharedMemory)  # its window: in the table's last row
                else 0
                if a is None
                else a.nbytes
                for p, v, a in zip(launch.sig.params, values, arrays, strict=True)
            ]
            or [0],
            np.int64,
        )
        rows = [(a.ctypes.data, a.nbytes) for a in arrays if a is not None]
        self.count = len(rows) + 1
        self.table = np.zeros((len(shared), self.count, 2), np.uint64)
        if rows:
            self.table[:, :-1] = rows
        self.table[:, -1, 0] = shared
        self.table[:, -1, 1] = shared_bytes

    def fill(self, record: Any, group: int) -> None:
        record[RECORD.word("extents")] = self.extents.ctypes.data
        record[RECORD.word("buffers")] = self.table[group].ctypes.data
        record[RECORD.word("buffer_count")] = self.count


def _defines(module: Any, symbol: str) -> bool:
    try:
        module.get_global_variable(symbol)
    except NameError:
        return False
    return True


def _argument_slots(values: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """One 8-byte slot per argument, as the workers load them: an array's
    address, or a scalar's bytes (numpy scalars of the parameter's type)."""
    slots = np.zeros(max(1, len(values)), np.uint64)
    raw = slots.view(np.uint8)
    for i, value in enumerate(values):
        if isinstance(value, np.ndarray):
            slots[i] = value.ctypes.data
        else:
            data = value.tobytes()
            raw[i * ARG_SLOT_BYTES : i * ARG_SLOT_BYTES + len(data)] = list(data)
    return slots


def _private_copies_fit(value: Any) -> bool:
    """Whether a summed parameter's argument is an array whose buffer a
    zeroed copy of the same layout stands for (C-contiguous, so the copy
    covers whatever the kernel indexes) and whose elements the executor can
    add (`PRIVATE_SUMS`)."""
    return (
        isinstance(value, np.ndarray)
        and bool(value.flags.c_contiguous)
        and value.dtype.name in PRIVATE_SUMS
    )


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _aligned(
    nbytes: int, align: int = ALIGN
) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], int]:
    """A zeroed, `align`-aligned buffer of `nbytes` (a multiple of 8) as
    uint64 words, and its address; the caller keeps it alive while JIT code
    uses it."""
    buf = np.zeros(nbytes + align, np.uint8)
    offset = -buf.ctypes.data % align
    words = buf[offset : offset + nbytes].view(np.uint64)
    return words, int(words.ctypes.data)


_jit_lock = threading.Lock()


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


class NativeExecutor:
    """JIT-compiles a native-target module once and launches its kernels."""

    code_field = "llvm_ir"

    def __init__(
        self,
        llvm_ir: str,
        kernels: Mapping[str, KernelSignature],
        *,
        workers: int | None = None,
        limits: Limits = CUDA_LIMITS,
        cache: bool | None = None,
        specialize: Callable[[str, Dim3], str] | None = None,
    ) -> None:
        """`cache` (None: GPUC_CACHE, on unless 0) keeps the JIT's object code
        in the compile cache. `specialize(kernel, block)`: the module's LLVM
        IR with that kernel compiled for that block
        (`gpuc.compiler.specialized_llvm_ir`), for barrier kernels launched
        SPECIALIZE_AFTER times with one block."""
        import llvmlite.binding as llvm

        self.kernels = dict(kernels)
        self._cache = cache
        self._specialize = (
            specialize if os.environ.get("GPUC_SPECIALIZE", "1") != "0" else None
        )
        self._launches: dict[tuple[str, Any], int] = {}
        """Launches so far per (barrier kernel, block as given)."""
        self._variants: dict[tuple[str, Any], NativeExecutor] = {}
        """The executor of each kernel's module compiled for one block."""
        self.limits = limits
        self.workers = workers or _cpu_count()
        self._libc = _libc()
        with _jit_lock:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            for name in _LIBC_FUNCTIONS:
                address = ctypes.cast(getattr(self._libc, name), ctypes.c_void_p).value
                llvm.add_symbol(name, address)
            _load_compiler_runtime(llvm)
            llvm.add_symbol(NATIVE_PRINT, HOOK_ADDRESS)
            self._pool = pool(llvm)
            module = llvm.parse_assembly(llvm_ir)
            calls = [
                call_ir(name, sig.launch_symbol, self._entry_arg_types(module, sig))
                for name, sig in self.kernels.items()
            ]
            glue_ir = (
                f'target triple = "{module.triple}"\n'
                f'target datalayout = "{module.data_layout}"\n'
                + "".join(calls)
                + PRIVATE_SUM_IR
            )
            module.link_in(llvm.parse_assembly(glue_ir))
            module.verify()
            target = llvm.Target.from_triple(module.triple or llvm.get_process_triple())
            cpu = llvm.get_host_cpu_name()
            features = llvm.get_host_cpu_features().flatten()
            machine = target.create_target_machine(
                cpu=cpu, features=features, opt=JIT_OPT_LEVEL, jit=True
            )
            self._engine = llvm.create_mcjit_compiler(module, machine)
            self.jit_cache = "off"
            """"hit" (object code from the cache), "miss" (compiled, then
            stored) or "off"."""
            if compile_cache.enabled(cache):
                key = compile_cache.native_object_key(
                    f"opt={JIT_OPT_LEVEL}\n{llvm_ir}\n{glue_ir}", cpu, features
                )
                self._cache_objects(compile_cache.Cache(), key)
            self._engine.finalize_object()
            self._calls = {
                name: self._engine.get_function_address(f"__gpuc_call_{name}")
                for name in self.kernels
            }
            self._private_sums = {
                dtype: ctypes.CFUNCTYPE(
                    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64
                )(self._engine.get_function_address(symbol))
                for dtype, symbol in PRIVATE_SUMS.items()
            }
            self._entries = {
                name: _direct_entry(
                    self._engine.get_function_address(sig.launch_symbol),
                    self._entry_arg_types(module, sig),
                )
                for name, sig in self.kernels.items()
            }
            self._prints = any(f.name == NATIVE_PRINT for f in module.functions)
            """The module prints (gpuc.printf): its launches collect the text."""
            self._checked = {
                name
                for name, sig in self.kernels.items()
                if _defines(module, checked_symbol(sig.launch_symbol))
            }
        self._local = threading.local()
        self._fast: dict[str, _FastPath | None] = {}

    def _cache_objects(self, store: compile_cache.Cache, key: str) -> None:
        """Hook MCJIT's object cache to `store`: its code generator asks for
        the object first (a hit skips it) and hands over what it made."""

        def get_object(_module: object) -> bytes | None:
            found = store.get_bytes("native", key)
            if found is not None:
                self.jit_cache = "hit"
            return found

        def made_object(_module: object, data: bytes) -> None:
            self.jit_cache = "miss"
            store.put_bytes("native", key, bytes(data))

        self._engine.set_object_cache(made_object, get_object)

    @staticmethod
    def _entry_arg_types(module: Any, sig: KernelSignature) -> list[str]:
        """The LLVM types of `__gpuc_launch_<k>`'s arguments after `launch`,
        checked against the signature the compiler reported."""
        entry = sig.launch_symbol
        try:
            fn = module.get_function(entry)
        except NameError:
            raise LaunchError(
                f"kernel '{sig.name}': the native module defines no '{entry}' "
                "(see docs/native-abi.md); was it compiled for the native target?"
            ) from None
        types = [str(a.type) for a in fn.arguments]
        if len(types) != len(sig.params) + 1 or types[0] != "ptr":
            raise LaunchError(
                f"kernel '{sig.name}': '{entry}' takes ({', '.join(types)}), which "
                f"does not match (ptr launch, {len(sig.params)} kernel parameters)"
            )
        return types[1:]

    def checked(self, name: str) -> bool:
        """Whether kernel `name` was compiled in checked mode."""
        return name in self._checked

    def _groups(self, blocks: int, threads: int) -> int:
        """How many OS threads (block ranges) a launch gets."""
        if blocks * threads < SPLIT_THRESHOLD:
            return 1
        return min(blocks, self.workers, MAX_WORKERS)

    def launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        if not self._prints:
            return self._launch(name, grid, block, args)
        with block_output():  # what the kernel prints, after it (in block order)
            return self._launch(name, grid, block, args)

    def _launch(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        key = (name, block) if self._specialize is not None and _plain(block) else None
        if key is not None:
            variant = self._variants.get(key)
            if variant is not None:
                variant._launch(name, grid, block, args)
                return
        self._launch_here(name, grid, block, args)
        if key is not None:
            self._launched(key)

    def _launch_here(
        self, name: str, grid: object, block: object, args: Sequence[object]
    ) -> None:
        fast = self._fast.get(name)
        if fast is None and name in self.kernels and name not in self._fast:
            fast = self._fast[name] = _FastPath.of(self, name)
        if fast is not None and fast.launch(self, grid, block, args):
            return
        launch = check_launch(
            self.kernels, name, grid, block, args, lambda _: self.limits, 0, True
        )
        values = with_shared_offsets(launch)
        groups = self._groups(launch.blocks, launch.threads)
        summed = (
            [
                i
                for i, param in enumerate(launch.sig.params)
                if param.summed and param.space is not None
            ]
            if name not in self._checked
            else []
        )
        if summed and not all(_private_copies_fit(values[i]) for i in summed):
            groups = 1  # one OS thread adds into the caller's buffers itself
        direct = self._entries[name]
        if groups == 1 and direct is not None:
            self._run_here(direct, name, launch, values)
            return
        shared_bytes = _shared_bytes(launch)
        # Each OS thread's shared memory on pages of its own: a core's
        # prefetchers fetch the neighbours of the lines it touches within a
        # page, so another thread's shared memory there ping-ponged between
        # the cores (scan_block ran at 3.5-10 ms on two cores, 2.0-2.6 ms
        # padded, 5 ms on one).
        shared_stride = -(-max(shared_bytes, 1) // PAGE) * PAGE
        # The JIT code points into these buffers; they live until after the join.
        row = _argument_slots(values)
        # One row of argument slots per worker where a summed parameter gets
        # a private copy (worker i reads row i), else one row for all.
        slots = np.tile(row, groups) if summed else row
        row_bytes = row.nbytes if summed else 0
        copies: list[tuple[np.ndarray[Any, Any], list[np.ndarray[Any, Any]]]] = []
        # A launch without private copies leaves the kept ones for the next
        # launch that has some.
        spares = self._spare_copies() if summed and groups > 1 else {}
        for i in summed if groups > 1 else []:
            array = values[i]
            key = (array.shape, array.dtype.str)
            spare = spares.get(key, [])
            private = [
                spare.pop() if spare else np.zeros_like(array)
                for _ in range(groups - 1)
            ]
            for group, copy in enumerate(private, 1):
                slots[group * len(row) + i] = copy.ctypes.data
            copies.append((array, private))
        records, records_at = _aligned(groups * RECORD_BYTES)
        shared, shared_at = _aligned(groups * shared_stride, PAGE)

        view = records.reshape(groups, RECORD_BYTES // 8)
        buffers = (
            _Buffers(
                launch,
                [shared_at + g * shared_stride for g in range(groups)],
                shared_bytes,
            )
            if name in self._checked
            else None
        )
        for group in range(groups):
            row = view[group]
            row[RECORD.words("grid_dim")] = launch.grid
            row[RECORD.words("block_dim")] = launch.block
            row[RECORD.word("shared")] = shared_at + group * shared_stride
            if buffers is not None:
                buffers.fill(row, group)
        # A few chunks per worker: one that starts late, or is slowed down,
        # takes fewer.
        chunk = max(1, launch.blocks // (4 * groups))
        threads = self._pool.grow(groups - 1)
        err = self._pool.run(
            self._pool.at,
            self._calls[name],
            records_at,
            min(groups, threads + 1),
            slots.ctypes.data,
            row_bytes,
            launch.blocks,
            chunk,
        )
        if err:
            raise LaunchError(
                f"kernel '{name}': the system refused the memory to start this "
                f"launch ({os.strerror(err)}); nothing ran"
            )
        kept: dict[tuple[Any, ...], list[np.ndarray[Any, Any]]] = {}
        for array, private in copies:
            add = self._private_sums[array.dtype.name]
            for copy in private:
                add(array.ctypes.data, copy.ctypes.data, array.size)
            kept.setdefault((array.shape, array.dtype.str), []).extend(private)
        if copies:
            # Zeroed again for this thread's next launch, with the same shapes:
            # filling them costs less than the page faults of fresh ones.
            self._local.spares = kept
        failed = view[:, RECORD.word("error")]
        if failed.any():
            # The lowest failing block of those that ran.
            rows = np.flatnonzero(failed)
            group = int(rows[np.argmin(view[rows, RECORD.word("error_block")])])
            _report(name, launch, view[group])
        del records, shared, slots, buffers

    def _spare_copies(self) -> dict[tuple[Any, ...], list[np.ndarray[Any, Any]]]:
        """The zeroed private copies this Python thread's last launch with
        summed parameters kept, by shape and dtype (taken by this launch)."""
        spares: dict[tuple[Any, ...], list[np.ndarray[Any, Any]]] = getattr(
            self._local, "spares", {}
        )
        self._local.spares = {}
        return spares

    def _launched(self, key: tuple[str, Any]) -> None:
        """Count a launch that ran (kernel name, block as given); after the
        SPECIALIZE_AFTER-th of a kernel with barriers and no known block size,
        compile its module for that block, for the launches to come."""
        name, block = key
        sig = self.kernels[name]
        if not sig.uses_barrier or sig.block_size is not None:
            return
        count = self._launches[key] = self._launches.get(key, 0) + 1
        if count != SPECIALIZE_AFTER:
            return
        if sum(kernel == name for kernel, _ in self._variants) >= MAX_VARIANTS:
            return
        assert self._specialize is not None
        dims = dim3(block, "block", name)
        try:
            variant = NativeExecutor(
                self._specialize(name, dims),
                {name: sig},
                workers=self.workers,
                limits=self.limits,
                cache=self._cache,
            )
        except Exception as e:  # a compiler bug: the generic code still runs
            warnings.warn(
                f"gpuc: kernel '{name}' could not be compiled for block {dims} "
                f"({type(e).__name__}: {e}); its launches keep the generic "
                "work-group function",
                RuntimeWarning,
                stacklevel=4,
            )
            return
        self._variants[key] = variant

    def _record_here(
        self, grid: Dim3, block: Dim3, shared_bytes: int
    ) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], int]:
        """This thread's launch record (kept from one launch to the next), filled
        for one block range covering `grid` with `shared_bytes` of shared memory
        per block, and its address."""
        local = self._local
        record: np.ndarray[Any, np.dtype[np.uint64]] | None = getattr(
            local, "record", None
        )
        if record is None:
            record, local.record_at = _aligned(RECORD_BYTES)
            local.record = record
            local.shared, local.shared_at = _aligned(ALIGN)
        need = -(-max(shared_bytes, 1) // ALIGN) * ALIGN
        if local.shared.nbytes < need:
            local.shared, local.shared_at = _aligned(need)
        filled = (grid, block, local.shared_at)
        if getattr(local, "filled", None) == filled:
            # What the last launch here wrote, but the fields a launch sets.
            record[_ERROR] = 0
            record[_KIND] = 0
            return record, local.record_at
        local.filled = filled
        gx, gy, gz = grid
        record[_GRID : _GRID + 3] = grid
        record[_BLOCK : _BLOCK + 3] = block
        record[_BEGIN] = 0
        record[_END] = gx * gy * gz
        record[_SHARED] = local.shared_at
        record[_ERROR] = 0
        record[_KIND] = 0
        return record, local.record_at

    def _run_here(
        self,
        direct: tuple[Any, tuple[bool, ...]],
        name: str,
        launch: Launch,
        values: Sequence[Any],
    ) -> None:
        """A launch of one block range, called directly in this thread on
        per-thread buffers kept from one launch to the next (a small launch
        then costs little more than its argument checks)."""
        local = self._local
        shared_bytes = _shared_bytes(launch)
        record, record_at = self._record_here(launch.grid, launch.block, shared_bytes)
        buffers = None
        if name in self._checked:
            buffers = _Buffers(launch, [local.shared_at], shared_bytes)
            buffers.fill(record, 0)
        entry, kinds = direct
        entry(record_at, *map(_as_c, kinds, values))
        del buffers
        if record[_ERROR]:
            _report(name, launch, record)


_from_buffer = ctypes.c_char.from_buffer
_address_of = ctypes.addressof
_c_float = ctypes.c_float.from_buffer_copy

POINTER, INT, F32, F64 = range(4)


class _FastPath:
    """The launch of a small kernel (one block range, run in the calling
    thread) whose arguments are what the kernel takes exactly: C-contiguous,
    aligned numpy arrays of its element types, numpy scalars of its parameter
    types (or Python ints in range, floats for f64). Checked per argument in
    one loop and passed straight to the launch entry, without building the
    general checks' converted list (`check_args`); anything else, and any
    launch this does not take, goes through those checks, which convert it or
    say what is wrong."""

    def __init__(
        self,
        sig: KernelSignature,
        entry: Any,
        params: list[tuple[int, Any, bool, int, int, int]],
    ) -> None:
        self.sig = sig
        self.entry = entry
        self.params = params
        """Per parameter: kind, accepted dtypes (arrays) or scalar type,
        written, alignment beyond the element's (0: none), int range."""
        self.geometries: dict[tuple[object, object], tuple[Dim3, Dim3] | None] = {}
        """Checked geometries of plain ints (None: too big to run here)."""

    @staticmethod
    def of(executor: NativeExecutor, name: str) -> _FastPath | None:
        """The fast path of kernel `name`, None if its launches cannot take it
        (a checked kernel, memref sizes, shared parameters, f16 scalars)."""
        sig = executor.kernels[name]
        direct = executor._entries[name]
        if direct is None or name in executor._checked or sig.shapes:
            return None
        params: list[tuple[int, Any, bool, int, int, int]] = []
        for param in sig.params:
            try:
                dtype = param.dtype
            except KeyError:
                return None
            if param.kind == "pointer":
                if param.space not in ("global", "constant", "generic"):
                    return None
                candidates = {dtype}
                if dtype.kind in "iu":
                    candidates |= {np.dtype(f"i{dtype.itemsize}")}
                    candidates |= {np.dtype(f"u{dtype.itemsize}")}
                extra = param.alignment if param.alignment > dtype.itemsize else 0
                params.append(
                    (POINTER, frozenset(candidates), param.written, extra, 0, 0)
                )
            elif param.kind == "int":
                bits = dtype.itemsize * 8
                low = -(2 ** (bits - 1))
                high = 2**bits - 1 if param.type_name != "index" else 2**63 - 1
                if param.type_name == "i1":
                    low, high = 0, 1
                params.append((INT, dtype.type, False, 0, low, high))
            elif dtype == np.float32:
                params.append((F32, np.float32, False, 0, 0, 0))
            elif dtype == np.float64:
                params.append((F64, np.float64, False, 0, 0, 0))
            else:
                return None
        return _FastPath(sig, direct[0], params)

    def launch(
        self,
        executor: NativeExecutor,
        grid: object,
        block: object,
        args: Sequence[object],
    ) -> bool:
        """Launch with `args` if this path takes them; False if it does not."""
        params = self.params
        if type(args) not in (tuple, list) or len(args) != len(params):
            return False
        values: list[Any] = []
        for (kind, accepted, written, extra, low, high), value in zip(
            params, args, strict=True
        ):
            if kind == POINTER:
                if type(value) is not np.ndarray or value.dtype not in accepted:
                    return False
                flags = value.flags
                if not (flags.c_contiguous and flags.aligned):
                    return False
                if flags.writeable and value.size:
                    address = _address_of(_from_buffer(value))  # type: ignore[arg-type]
                elif written:
                    return False
                else:
                    address = value.__array_interface__["data"][0]
                if extra and address % extra:
                    return False
                values.append(address)
            elif type(value) is accepted:
                scalar: Any = value
                values.append(_c_float(scalar) if kind == F32 else scalar.item())
            elif kind == INT and type(value) is int and low <= value <= high:
                bits = 8 * np.dtype(accepted).itemsize
                values.append(value - 2**bits if value >= 2 ** (bits - 1) else value)
            elif type(value) is bool and accepted is np.bool_:
                values.append(value)
            elif kind == F64 and type(value) is float:
                values.append(value)
            else:
                return False
        sig = self.sig
        if not (_plain(grid) and _plain(block)):
            return False
        key = (grid, block)
        if key in self.geometries:
            found = self.geometries[key]
        else:
            g, b = remembered_geometry(sig, grid, block, executor.limits, 0)
            small = g[0] * g[1] * g[2] * b[0] * b[1] * b[2] < SPLIT_THRESHOLD
            found = self.geometries[key] = (g, b) if small else None
            if len(self.geometries) > 64:
                self.geometries.clear()
        if found is None:
            return False
        record, record_at = executor._record_here(
            *found, dynamic_shared_start(sig.static_shared_bytes)
        )
        self.entry(record_at, *values)
        if record[_ERROR]:
            launch = check_launch(
                executor.kernels, sig.name, grid, block, args, lambda _: executor.limits
            )
            _report(sig.name, launch, record)
        return True


def _plain(dims: object) -> bool:
    """An int or a tuple of ints (not bools, floats or numpy ints, which
    compare equal to them but are the general checks' to accept)."""
    kind = type(dims)
    return kind is int or (kind is tuple and all([type(d) is int for d in dims]))  # type: ignore[attr-defined]
