"""The native executor: runs the native target's LLVM IR in-process through
llvmlite's JIT, with a grid emulator following docs/native-abi.md.

A launch is one call into JIT-compiled code that gpuc generates next to the
kernels (`__gpuc_spawn` and a worker per kernel): it runs the first block
range in the calling thread, starts an OS thread with `pthread_create` for
each other range, each calling `__gpuc_launch_<k>` on its own launch
record, and joins them. No Python runs while a kernel runs, so the threads
never wait for the GIL.

Every kernel runs its blocks one after another in one OS thread per block
range: a kernel without barriers as a loop nest over each block's threads, a
kernel with barriers as one call of its work-group function per block
(gpuc/targets/work_items.py), which loops over the block's threads between
barriers. Big launches are split into contiguous block ranges, one per core,
each with its own shared memory. Threads start behind a gate (a
`pthread_rwlock_t` the spawner holds while creating them): if the system
refuses a thread, the ones already started leave without running, so a
launch fails with a message and nothing runs.

The JIT's object code is kept in the compile cache (gpuc/cache.py,
`native_object_key`) through MCJIT's object-cache hooks: a later executor for
the same IR on the same host, in any process, loads it instead of running
LLVM's code generator (`jit_cache` says which happened).
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gpuc import cache as compile_cache
from gpuc.runtime.args import (
    CUDA_LIMITS,
    KernelSignature,
    Launch,
    LaunchError,
    Limits,
    check_launch,
    with_shared_offsets,
)
from gpuc.runtime.arrays import SharedMemory
from gpuc.runtime.printing import HOOK_ADDRESS, block_output
from gpuc.targets.launch_abi import NATIVE_PRINT
from gpuc.targets.native_abi import (
    FAULT_BOUNDS,
    FAULT_RETURNED,
    FAULT_THREAD,
    LAUNCH,
    Layout,
    checked_symbol,
    dynamic_shared_start,
)

ARG_SLOT_BYTES = 8
SYNC_OBJECT_BYTES = 128  # room for a pthread_rwlock_t anywhere
ALIGN = 64
THREAD_STACK_BYTES = 1 << 20
SPLIT_THRESHOLD = 1 << 15  # threads in a launch before it is worth a second core
JIT_OPT_LEVEL = 3
# The executor's own contract between this file and the glue IR below. Per OS
# thread: the ABI's launch record, then where that thread's worker finds the
# launch's control block and where pthread_create puts its pthread_t. Records
# are ALIGN-strided, so no two threads' records share a cache line.
RECORD = LAUNCH.then(("control", 1), ("thread_handle", 1))
RECORD_BYTES = -(-RECORD.size // ALIGN) * ALIGN
# One per launch: the argument slots, the gate (a pthread_rwlock_t; null when
# the spawner runs the only worker itself), and the abort flag (an i32) the
# spawner sets when a pthread_create fails.
CONTROL = Layout((("args", 1), ("gate", 1), ("abort", 1)))

_LIBC_FUNCTIONS = (
    "pthread_create",
    "pthread_join",
    "pthread_attr_init",
    "pthread_attr_setstacksize",
    "pthread_attr_destroy",
    "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock",
    "pthread_rwlock_unlock",
    "_setjmp",
    "longjmp",
)

# Runs `n` workers on consecutive records: the first in the calling thread
# (already running, so it starts at once), the others on new threads it then
# joins; returns 0 or the error of the pthread_create that failed (the
# workers then all see `abort` at the gate and run nothing).
_SPAWN_IR = f"""
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(i64, ptr)
declare i32 @pthread_attr_init(ptr)
declare i32 @pthread_attr_setstacksize(ptr, i64)
declare i32 @pthread_attr_destroy(ptr)
declare i32 @pthread_rwlock_rdlock(ptr)
declare i32 @pthread_rwlock_wrlock(ptr)
declare i32 @pthread_rwlock_unlock(ptr)

define i32 @__gpuc_spawn(ptr %worker, ptr %recs, i64 %n, ptr %ctl, i64 %stack) {{
entry:
  %attr = alloca [128 x i8], align 16
  %one = icmp eq i64 %n, 1
  br i1 %one, label %inline, label %threads
inline:
  %r = call ptr %worker(ptr %recs)
  ret i32 0
threads:
  %lockp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("gate")}
  %lock = load ptr, ptr %lockp
  call i32 @pthread_attr_init(ptr %attr)
  call i32 @pthread_attr_setstacksize(ptr %attr, i64 %stack)
  call i32 @pthread_rwlock_wrlock(ptr %lock)
  br label %create
create:
  %i = phi i64 [ 1, %threads ], [ %inext, %created ]
  %off = mul i64 %i, {RECORD_BYTES}
  %rec = getelementptr i8, ptr %recs, i64 %off
  %tidp = getelementptr i8, ptr %rec, i64 {RECORD.offset("thread_handle")}
  %rc = call i32 @pthread_create(ptr %tidp, ptr %attr, ptr %worker, ptr %rec)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %created, label %failed
created:
  %inext = add i64 %i, 1
  %more = icmp ult i64 %inext, %n
  br i1 %more, label %create, label %release
failed:
  %abortp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("abort")}
  store i32 1, ptr %abortp
  br label %release
release:
  %started = phi i64 [ %n, %created ], [ %i, %failed ]
  %err = phi i32 [ 0, %created ], [ %rc, %failed ]
  call i32 @pthread_rwlock_unlock(ptr %lock)
  call i32 @pthread_attr_destroy(ptr %attr)
  %here = call ptr %worker(ptr %recs)
  %any = icmp ugt i64 %started, 1
  br i1 %any, label %join, label %out
join:
  %j = phi i64 [ 1, %release ], [ %jnext, %join ]
  %joff = mul i64 %j, {RECORD_BYTES}
  %recj = getelementptr i8, ptr %recs, i64 %joff
  %tidq = getelementptr i8, ptr %recj, i64 {RECORD.offset("thread_handle")}
  %tid = load i64, ptr %tidq
  call i32 @pthread_join(i64 %tid, ptr null)
  %jnext = add i64 %j, 1
  %jmore = icmp ult i64 %jnext, %started
  br i1 %jmore, label %join, label %out
out:
  ret i32 %err
}}
"""


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


def _worker_ir(kernel: str, entry: str, arg_types: Sequence[str]) -> str:
    """A pthread start routine that waits at the gate, unpacks the argument
    slots and calls the kernel's launch entry `entry` with its record."""
    loads: list[str] = []
    call_args = ["ptr %rec"]
    for i, ty in enumerate(arg_types):
        slot = f"%s{i}"
        loads.append(
            f"  {slot} = getelementptr i8, ptr %args, i64 {i * ARG_SLOT_BYTES}"
        )
        if ty == "i1":  # stored as a byte by the host
            loads.append(f"  %b{i} = load i8, ptr {slot}")
            loads.append(f"  %a{i} = trunc i8 %b{i} to i1")
        else:
            loads.append(f"  %a{i} = load {ty}, ptr {slot}")
        call_args.append(f"{ty} %a{i}")
    return f"""
declare void @"{entry}"({", ".join(["ptr", *arg_types])})

define ptr @"__gpuc_worker_{kernel}"(ptr %rec) {{
entry:
  %ctlp = getelementptr i8, ptr %rec, i64 {RECORD.offset("control")}
  %ctl = load ptr, ptr %ctlp
  %lockp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("gate")}
  %lock = load ptr, ptr %lockp
  %gated = icmp ne ptr %lock, null
  br i1 %gated, label %gate, label %run
gate:
  call i32 @pthread_rwlock_rdlock(ptr %lock)
  %abortp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("abort")}
  %abort = load i32, ptr %abortp
  call i32 @pthread_rwlock_unlock(ptr %lock)
  %stop = icmp ne i32 %abort, 0
  br i1 %stop, label %done, label %run
run:
  %argsp = getelementptr i8, ptr %ctl, i64 {CONTROL.offset("args")}
  %args = load ptr, ptr %argsp
{chr(10).join(loads)}
  call void @"{entry}"({", ".join(call_args)})
  br label %done
done:
  ret ptr null
}}
"""


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


def _pthread(rc: int, what: str) -> None:
    if rc != 0:
        raise LaunchError(f"native executor: pthread {what} failed: {os.strerror(rc)}")


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


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pthread_rwlock_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    libc.pthread_rwlock_destroy.argtypes = [ctypes.c_void_p]
    return libc


def _aligned(nbytes: int) -> tuple[np.ndarray[Any, np.dtype[np.uint64]], int]:
    """A zeroed, ALIGN-aligned buffer of `nbytes` (a multiple of 8) as uint64
    words, and its address; the caller keeps it alive while JIT code uses it."""
    buf = np.zeros(nbytes + ALIGN, np.uint8)
    offset = -buf.ctypes.data % ALIGN
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
    ) -> None:
        """`cache` (None: GPUC_CACHE, on unless 0) keeps the JIT's object code
        in the compile cache."""
        import llvmlite.binding as llvm

        self.kernels = dict(kernels)
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
            module = llvm.parse_assembly(llvm_ir)
            worker_ir = [_SPAWN_IR]
            for name, sig in self.kernels.items():
                worker_ir.append(
                    _worker_ir(
                        name, sig.launch_symbol, self._entry_arg_types(module, sig)
                    )
                )
            glue_ir = (
                f'target triple = "{module.triple}"\n'
                f'target datalayout = "{module.data_layout}"\n' + "".join(worker_ir)
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
            self._spawn = ctypes.CFUNCTYPE(
                ctypes.c_int32,
                ctypes.c_void_p,
                ctypes.c_void_p,
                ctypes.c_int64,
                ctypes.c_void_p,
                ctypes.c_int64,
            )(self._engine.get_function_address("__gpuc_spawn"))
            self._workers = {
                name: self._engine.get_function_address(f"__gpuc_worker_{name}")
                for name in self.kernels
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
        return min(blocks, self.workers)

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
        launch = check_launch(
            self.kernels, name, grid, block, args, lambda _: self.limits, 0, True
        )
        values = with_shared_offsets(launch)
        groups = self._groups(launch.blocks, launch.threads)
        direct = self._entries[name]
        if groups == 1 and direct is not None:
            self._run_here(direct, name, launch, values)
            return
        shared_bytes = _shared_bytes(launch)
        shared_stride = -(-max(shared_bytes, 1) // ALIGN) * ALIGN
        # The JIT code points into these buffers; they live until after the join.
        slots = _argument_slots(values)
        records, records_at = _aligned(groups * RECORD_BYTES)
        shared, shared_at = _aligned(groups * shared_stride)
        ctl, ctl_at = _aligned(SYNC_OBJECT_BYTES)
        lock, lock_at = _aligned(SYNC_OBJECT_BYTES)
        ctl[CONTROL.word("args")] = slots.ctypes.data
        ctl[CONTROL.word("gate")] = lock_at if groups > 1 else 0

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
        per_group, extra = divmod(launch.blocks, groups)
        begin = 0
        for group in range(groups):
            end = begin + per_group + (1 if group < extra else 0)
            row = view[group]
            row[RECORD.words("grid_dim")] = launch.grid
            row[RECORD.words("block_dim")] = launch.block
            row[RECORD.word("block_begin")] = begin
            row[RECORD.word("block_end")] = end
            row[RECORD.word("shared")] = shared_at + group * shared_stride
            row[RECORD.word("control")] = ctl_at
            if buffers is not None:
                buffers.fill(row, group)
            begin = end

        libc = self._libc
        if groups > 1:
            _pthread(libc.pthread_rwlock_init(lock_at, None), "rwlock init")
        try:
            err = self._spawn(
                self._workers[name], records_at, groups, ctl_at, THREAD_STACK_BYTES
            )
        finally:
            if groups > 1:
                libc.pthread_rwlock_destroy(lock_at)
        if err:
            raise LaunchError(
                f"kernel '{name}': the system refused to start the {groups} OS "
                f"threads of this launch ({os.strerror(err)}); nothing ran"
            )
        failed = view[:, RECORD.word("error")]
        if failed.any():
            group = int(np.flatnonzero(failed)[0])
            _report(name, launch, view[group])
        del records, shared, ctl, lock, slots, buffers

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
        record: np.ndarray[Any, np.dtype[np.uint64]] | None = getattr(
            local, "record", None
        )
        if record is None:
            record, local.record_at = _aligned(RECORD_BYTES)
            local.record = record
            local.shared, local.shared_at = _aligned(ALIGN)
        shared_bytes = _shared_bytes(launch)
        need = -(-max(shared_bytes, 1) // ALIGN) * ALIGN
        if local.shared.nbytes < need:
            local.shared, local.shared_at = _aligned(need)
        gx, gy, gz = launch.grid
        bx, by, bz = launch.block
        record[_GRID : _GRID + 3] = (gx, gy, gz)
        record[_BLOCK : _BLOCK + 3] = (bx, by, bz)
        record[_BEGIN] = 0
        record[_END] = gx * gy * gz
        record[_SHARED] = local.shared_at
        record[_ERROR] = 0
        record[_KIND] = 0
        buffers = None
        if name in self._checked:
            buffers = _Buffers(launch, [local.shared_at], shared_bytes)
            buffers.fill(record, 0)
        entry, kinds = direct
        entry(local.record_at, *map(_as_c, kinds, values))
        del buffers
        if record[_ERROR]:
            _report(name, launch, record)
